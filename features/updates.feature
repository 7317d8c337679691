@R2.1
Feature: Requests other than a pod's creation
  In order to label, annotate and debug running pods without surprises
  As an application developer
  I want presets to act when a pod is created, and never when it is updated or debugged

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

  Scenario: A label that makes a preset select a running pod changes nothing but the label
    Given I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          app: website
      spec:
        containers:
          - name: website
            image: ecorp/website
      """
    When I label the pod "website" with "role=frontend"
    Then the pod "website" should be as updated
    And the pod "website" should have no PodPreset annotations

  Scenario: Removing the exclude annotation from a running pod changes nothing but the annotation
    Given I create the pod:
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
    When I annotate the pod "website" with "podpreset.admission.kubernetes.io/exclude=false"
    Then the pod "website" should be as updated

  @R3.2
  Scenario: A debug container added to a pod gets nothing from the presets that selected the pod
    Given I create the pod:
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
    When I add the ephemeral container to the pod "website":
      """
      name: debugger
      image: busybox
      """
    Then the pod "website" should be as updated
