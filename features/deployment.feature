@R2.6
Feature: Deployments
  In order to have every replica of my service get its settings
  As a platform engineer
  I want each pod a Deployment creates to be mutated, and the Deployment itself never

  Scenario: Every pod of a Deployment is mutated; its template is not
    Given the PodPreset:
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
        volumeMounts:
          - mountPath: /cache
            name: cache-volume
        volumes:
          - name: cache-volume
            emptyDir: {}
      """
    When I create the objects:
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
      spec:
        replicas: 3
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
      """
    Then 3 pods owned by the Deployment "web" should be:
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
            volumeMounts:
              - mountPath: /cache
                name: cache-volume
        volumes:
          - name: cache-volume
            emptyDir: {}
      """
    And the Deployment "web" should be as submitted

  @R2.1
  Scenario: A preset created after the pods exist changes nothing running; the next rollout's pods get it
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
      """
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
    Then 2 pods owned by the Deployment "web" should be:
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
    When I trigger a rollout of the Deployment "web"
    Then 2 pods owned by the Deployment "web" should be:
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
