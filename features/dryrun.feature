@R2.1
Feature: Server-side dry run
  In order to preview what presets will do to a pod before I create it
  As an application developer
  I want a server-side dry run to return the mutated pod, with no side effects

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

  @R4.3
  Scenario: A dry run returns the pod mutated, and stores nothing
    When I try to create with a server-side dry run:
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
    Then the request should succeed
    And the request should have no warnings
    And the dry-run pod should be:
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
    And the pod "website" should not exist

  @R4.2 @R4.3 @warnings
  Scenario: A conflicting dry run warns, but records no event
    When I try to create with a server-side dry run:
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
                value: "5432"
      """
    Then the request should succeed
    And the request should have a warning containing "Conflict on pod preset allow-database: duplicate env DB_PORT in container website"
    And the pod "website" should have no events with reason "PodPresetConflict"
