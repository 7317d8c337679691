Feature: State over time
  In order to trust every admission, not only the first one into a fresh namespace
  As a platform engineer
  I want each pod decided by the presets as they stand when it is created, whatever came before

  @R6.3 @events @warnings
  Scenario: A second pod with the same conflict is told of it too
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: allow-database
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: DB_PORT
            value: "6379"
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: first
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: DB_PORT
                value: "5432"
      """
    And I try to create:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: second
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: DB_PORT
                value: "5432"
      """
    Then the request should have a warning containing "Conflict on pod preset allow-database: duplicate env DB_PORT"
    And the pod "second" should be as submitted
    And the pod "first" should have the event:
      | type    | reason            | message                                                    |
      | Warning | PodPresetConflict | Conflict on pod preset allow-database: duplicate env DB_PORT |
    And the pod "second" should have the event:
      | type    | reason            | message                                                    |
      | Warning | PodPresetConflict | Conflict on pod preset allow-database: duplicate env DB_PORT |

  @R6.2
  Scenario: What one pod brought does not reach the next pod
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: allow-database
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: DB_PORT
            value: "6379"
      """
    When I try to create with a server-side dry run:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: preview
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: FROM_THE_PREVIEW
                value: "1"
      """
    And I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: own
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: FROM_THE_FIRST_POD
                value: "1"
      """
    And I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: plain
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
      """
    Then the pod "plain" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: plain
        labels:
          role: frontend
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: "${rv:allow-database}"
      spec:
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: DB_PORT
                value: "6379"
      """

  @R6.1
  Scenario: A preset deleted and created again under its name applies as it now is
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: allow-database
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: DB_PORT
            value: "6379"
      """
    And I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: before
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
      """
    When I delete the PodPreset "allow-database"
    And the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: allow-database
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: DB_HOST
            value: db.internal
      """
    And I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: after
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
      """
    Then the pod "after" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: after
        labels:
          role: frontend
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: "${rv:allow-database}"
      spec:
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: DB_HOST
                value: db.internal
      """
