@R2.6
Feature: Jobs
  In order to give batch work its settings
  As a platform engineer
  I want the pods of a Job to be mutated, and to run to completion

  Scenario: A Job's pods are mutated and complete
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: allow-database
      spec:
        selector:
          matchLabels:
            app: report
        env:
          - name: DB_PORT
            value: "6379"
      """
    When I create the objects:
      """
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: report
      spec:
        completions: 2
        parallelism: 2
        template:
          metadata:
            labels:
              app: report
          spec:
            restartPolicy: Never
            containers:
              - name: report
                image: ecorp/report
      """
    Then the Job "report" should complete
    And 2 pods owned by the Job "report" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        labels:
          app: report
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: "${rv:allow-database}"
      spec:
        restartPolicy: Never
        containers:
          - name: report
            image: ecorp/report
            env:
              - name: DB_PORT
                value: "6379"
      """
