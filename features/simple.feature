@R3.1 @R3.2 @R3.7
Feature: Simple pod spec
  In order to give a pod the settings it needs to reach a database
  As a platform engineer
  I want a PodPreset to inject its env var, volume and volume mount into every matching pod

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

  @R2.3 @R3.3
  Scenario: A matching pod gets the preset's env var, volume and mount
    When I create the pod:
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
            ports:
              - containerPort: 80
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          app: website
          role: frontend
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: "${rv:allow-database}"
      spec:
        containers:
          - name: website
            image: ecorp/website
            ports:
              - containerPort: 80
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
    And the pod "website" should have the annotations:
      | key                                                        | value                |
      | podpreset.admission.kubernetes.io/podpreset-allow-database | ${rv:allow-database} |
    And the pod "website" should have no events with reason "PodPresetConflict"

  @R2.3
  Scenario: A pod the selector does not match is left alone
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: backend
        labels:
          role: backend
      spec:
        containers:
          - name: backend
            image: ecorp/backend
      """
    Then the pod "backend" should be as submitted
    And the pod "backend" should have no PodPreset annotations

  @R2.4
  Scenario: A pod with the exclude annotation is never mutated
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
        annotations:
          podpreset.admission.kubernetes.io/exclude: "true"
      spec:
        containers:
          - name: website
            image: ecorp/website
      """
    Then the pod "website" should be as submitted

  @R2.2
  Scenario: Presets of another namespace never apply
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        namespace: elsewhere
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
      """
    Then the pod "website" should be as submitted
    And the pod "website" should have no PodPreset annotations
    And the pod "website" should have no events with reason "PodPresetConflict"
