@R3.1
Feature: Where injected items go
  In order to rely on what a preset does to a pod that already has its own settings
  As an application developer
  I want injected items appended after mine, in every container and init container, never twice, and never half

  Background:
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
            name: cache-volume
        volumes:
          - name: cache-volume
            emptyDir: {}
      """

  @R3.2 @R3.3 @initContainers
  Scenario: Init containers get the preset too, after their own items
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
      spec:
        initContainers:
          - name: migrate
            image: ecorp/migrate
            env:
              - name: STEP
                value: migrate
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: MODE
                value: production
            volumeMounts:
              - mountPath: /data
                name: data
        volumes:
          - name: data
            emptyDir: {}
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: "${rv:allow-database}"
      spec:
        initContainers:
          - name: migrate
            image: ecorp/migrate
            env:
              - name: STEP
                value: migrate
              - name: DB_PORT
                value: "6379"
            volumeMounts:
              - mountPath: /cache
                name: cache-volume
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: MODE
                value: production
              - name: DB_PORT
                value: "6379"
            volumeMounts:
              - mountPath: /data
                name: data
              - mountPath: /cache
                name: cache-volume
        volumes:
          - name: data
            emptyDir: {}
          - name: cache-volume
            emptyDir: {}
      """

  @R3.4 @R3.7
  Scenario: An item identical to the pod's own is skipped: no duplicate, no conflict, still annotated
    When I create the pod:
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
              - name: DB_PORT
                value: "6379"
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
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
            volumeMounts:
              - mountPath: /cache
                name: cache-volume
        volumes:
          - name: cache-volume
            emptyDir: {}
      """
    And the pod "website" should have no events with reason "PodPresetConflict"

  @R4.2 @R4.4
  Scenario: When one of two presets conflicts, neither applies and the pod keeps everything it had
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: logging
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: LOG_LEVEL
            value: debug
      """
    When I create the pod:
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
              - name: LOG_LEVEL
                value: info
              - name: MODE
                value: production
      """
    And I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: control
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
      """
    Then the pod "website" should be as submitted
    And the pod "website" should have no PodPreset annotations
    And the pod "control" should have the annotations:
      | key                                                        | value                |
      | podpreset.admission.kubernetes.io/podpreset-allow-database | ${rv:allow-database} |
      | podpreset.admission.kubernetes.io/podpreset-logging        | ${rv:logging}        |

  @R3.7
  Scenario: A preset whose labels changed is applied with its new resourceVersion
    When I create the pod:
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
    Then the pod "before" should have the annotations:
      | key                                                        | value                |
      | podpreset.admission.kubernetes.io/podpreset-allow-database | ${rv:allow-database} |
    When I try to update the PodPreset "allow-database" to:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: allow-database
        labels: {owner: platform}
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: DB_PORT
            value: "6379"
        volumeMounts:
          - mountPath: /cache
            name: cache-volume
        volumes:
          - name: cache-volume
            emptyDir: {}
      """
    Then the request should succeed
    When I create the pod:
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
      """
    Then the pod "website" should have the annotations:
      | key                                                        | value                |
      | podpreset.admission.kubernetes.io/podpreset-allow-database | ${rv:allow-database} |

  # Found by presetsim fuzz against real webhooks built on older API types:
  # a webhook that decodes the pod into types that do not know a field and
  # answers with the whole re-encoded pod removes that field.
  @R3.3 @R4.4 @initContainers
  Scenario: The pod's own fields come out as submitted, recent ones included
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
      spec:
        os:
          name: linux
        schedulingGates:
          - name: example.com/approved
        initContainers:
          - name: log-shipper
            image: ecorp/shipper
            restartPolicy: Always
        containers:
          - name: website
            image: ecorp/website
            volumeMounts:
              - mountPath: /data
                name: data
                readOnly: true
                recursiveReadOnly: IfPossible
        volumes:
          - name: data
            emptyDir: {}
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: ${rv:allow-database}
      spec:
        os:
          name: linux
        schedulingGates:
          - name: example.com/approved
        initContainers:
          - name: log-shipper
            image: ecorp/shipper
            restartPolicy: Always
            env:
              - name: DB_PORT
                value: "6379"
            volumeMounts:
              - mountPath: /cache
                name: cache-volume
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: DB_PORT
                value: "6379"
            volumeMounts:
              - mountPath: /data
                name: data
                readOnly: true
                recursiveReadOnly: IfPossible
              - mountPath: /cache
                name: cache-volume
        volumes:
          - name: data
            emptyDir: {}
          - name: cache-volume
            emptyDir: {}
      """

  # Found by presetsim fuzz the same way: an image volume became emptyDir,
  # and a mount lost its recursiveReadOnly, on their way through old types.
  @R3.1 @R3.2
  Scenario: A preset's recent volume sources and mount fields are injected as written
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: tools
      spec:
        selector:
          matchLabels:
            role: frontend
        volumes:
          - name: tools
            image:
              reference: registry.example/tools:1.2
              pullPolicy: IfNotPresent
        volumeMounts:
          - mountPath: /opt/tools
            name: tools
            readOnly: true
            recursiveReadOnly: IfPossible
      """
    When I create the pod:
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
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: ${rv:allow-database}
          podpreset.admission.kubernetes.io/podpreset-tools: ${rv:tools}
      spec:
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: DB_PORT
                value: "6379"
            volumeMounts:
              - mountPath: /cache
                name: cache-volume
              - mountPath: /opt/tools
                name: tools
                readOnly: true
                recursiveReadOnly: IfPossible
        volumes:
          - name: cache-volume
            emptyDir: {}
          - name: tools
            image:
              reference: registry.example/tools:1.2
              pullPolicy: IfNotPresent
      """
