@rollout
Feature: Rolling new presets out to running workloads (opt-in)
  In order to have running workloads pick up a new preset without redeploying them by hand
  As a platform engineer
  I want, where I opt in, the workloads a new preset selects to be restarted, and no others

  Background:
    Given the objects:
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
      spec:
        replicas: 2
        selector:
          matchLabels:
            app: web
        template:
          metadata:
            labels:
              app: web
          spec:
            containers:
              - name: web
                image: ecorp/website
      ---
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: other
      spec:
        replicas: 1
        selector:
          matchLabels:
            app: other
        template:
          metadata:
            labels:
              app: other
          spec:
            containers:
              - name: other
                image: ecorp/other
      """
    And the Deployment "web" should have 2 ready pods
    And the Deployment "other" should have 1 ready pod

  Scenario: Enabled: the selected workload's pods are replaced by mutated ones; others are not touched
    Given preset changes roll out to running workloads
    When the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: allow-database
      spec:
        selector:
          matchLabels:
            app: web
        env:
          - name: DB_PORT
            value: "6379"
      """
    Then the Deployment "web" should be restarted for the PodPreset "allow-database"
    And 2 pods owned by the Deployment "web" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        labels:
          app: web
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: "${rv:allow-database}"
      spec:
        containers:
          - name: web
            image: ecorp/website
            env:
              - name: DB_PORT
                value: "6379"
      """
    And the Deployment "other" should stay as submitted

  Scenario: Disabled (the default): nothing restarts
    When the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: allow-database
      spec:
        selector:
          matchLabels:
            app: web
        env:
          - name: DB_PORT
            value: "6379"
      """
    Then the Deployment "web" should stay as submitted
    And the Deployment "other" should stay as submitted
    And 2 pods owned by the Deployment "web" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        labels:
          app: web
      spec:
        containers:
          - name: web
            image: ecorp/website
      """
