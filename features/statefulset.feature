@R2.6
Feature: StatefulSets
  In order to give pods with a stable identity their settings, one identity at a time if need be
  As a platform engineer
  I want each pod a StatefulSet creates to be mutated, by the presets that select its identity

  Scenario: Pods web-0 to web-4 are each mutated, created in order
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: allow-database
      spec:
        selector:
          matchLabels:
            app: db
        env:
          - name: DB_PORT
            value: "6379"
      """
    When I create the objects:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        serviceName: web
        replicas: 5
        selector:
          matchLabels:
            app: db
        template:
          metadata:
            labels:
              app: db
          spec:
            containers:
              - name: db
                image: ecorp/db
      """
    Then 5 pods owned by the StatefulSet "web" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        labels:
          app: db
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: "${rv:allow-database}"
      spec:
        containers:
          - name: db
            image: ecorp/db
            env:
              - name: DB_PORT
                value: "6379"
      """
    And the pods of the StatefulSet "web" should have been created in order
    And the StatefulSet "web" should be as submitted

  @R2.3
  Scenario: A preset selecting one identity reaches only that pod, also after it is deleted
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: primary
      spec:
        selector:
          matchLabels:
            statefulset.kubernetes.io/pod-name: web-1
        env:
          - name: ROLE
            value: primary
      """
    When I create the objects:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        serviceName: web
        replicas: 3
        selector:
          matchLabels:
            app: db
        template:
          metadata:
            labels:
              app: db
          spec:
            containers:
              - name: db
                image: ecorp/db
      """
    Then the StatefulSet "web" should have 3 ready pods
    When I delete the pod "web-1"
    Then the StatefulSet "web" should have 3 ready pods
    And the pod "web-0" should have no PodPreset annotations
    And the pod "web-2" should have no PodPreset annotations
    And the pod "web-1" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        labels:
          app: db
          statefulset.kubernetes.io/pod-name: web-1
        annotations:
          podpreset.admission.kubernetes.io/podpreset-primary: "${rv:primary}"
      spec:
        containers:
          - name: db
            image: ecorp/db
            env:
              - name: ROLE
                value: primary
      """
