@R4.1 @R4.2 @R4.3 @R4.4
Feature: Conflicts
  In order to never break a pod that already defines what a preset injects
  As an application developer
  I want a conflicting preset to change nothing, and to be told why

  @events @warnings
  Scenario: A preset that mounts another volume at the pod's mountPath changes nothing
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
        volumeMounts:
          - mountPath: /cache
            name: other-volume
        volumes:
          - name: other-volume
            emptyDir: {}
      """
    When I try to create:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          app: website
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
            volumeMounts:
              - mountPath: /cache
                name: cache-volume
            ports:
              - containerPort: 80
        volumes:
          - name: cache-volume
            emptyDir: {}
      """
    Then the request should succeed
    And the pod "website" should be as submitted
    And the pod "website" should have no PodPreset annotations
    And the request should have a warning containing "Conflict on pod preset allow-database: duplicate mountPath /cache"
    And the pod "website" should have the event:
      | type    | reason            | message                                                  |
      | Warning | PodPresetConflict | Conflict on pod preset allow-database: duplicate mountPath /cache |

  @events @warnings
  Scenario: Every conflict is named: each key, in each container, of each preset
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: database
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: DB_HOST
            value: db.internal
          - name: DB_PORT
            value: "5432"
      """
    And the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: replica
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: DB_HOST
            value: replica.internal
      """
    When I try to create:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: DB_HOST
                value: localhost
              - name: DB_PORT
                value: "3306"
          - name: proxy
            image: ecorp/proxy
            env:
              - name: DB_HOST
                value: localhost
              - name: DB_PORT
                value: "3306"
      """
    Then the request should succeed
    And the pod "website" should be as submitted
    And the pod "website" should have no PodPreset annotations
    And the request should have a warning containing "Conflict on pod preset database: duplicate env DB_HOST in container website; duplicate env DB_PORT in container website; duplicate env DB_HOST in container proxy; duplicate env DB_PORT in container proxy"
    And the request should have a warning containing "Conflict on pod preset replica: duplicate env DB_HOST in container website; duplicate env DB_HOST in container proxy"
    And the pod "website" should have the event:
      | type    | reason            | message                                                                                                                                                                                                     |
      | Warning | PodPresetConflict | Conflict on pod preset database: duplicate env DB_HOST in container website; duplicate env DB_PORT in container website; duplicate env DB_HOST in container proxy; duplicate env DB_PORT in container proxy |
      | Warning | PodPresetConflict | Conflict on pod preset replica: duplicate env DB_HOST in container website; duplicate env DB_HOST in container proxy                                                                                        |

  @events @warnings @R3.7
  Scenario: A pod copied from one the preset was applied to, then edited, is warned of
    # kubectl get pod -o yaml, edit, create: the copy carries the preset's
    # annotation at its version, and an item that now conflicts with it.
    # The annotation says nothing of the items: the preset is compared
    # with the pod as it is.
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
    When I try to create:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website-copy
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
                value: "6380"
      """
    Then the request should succeed
    And the pod "website-copy" should be as submitted
    And the request should have a warning containing "Conflict on pod preset allow-database: duplicate env DB_PORT in container website"
    And the pod "website-copy" should have the event:
      | type    | reason            | message                                                                    |
      | Warning | PodPresetConflict | Conflict on pod preset allow-database: duplicate env DB_PORT in container website |
