Feature: Any object, in part
  In order to check what a webhook or a controller did to any object, not only pods
  As a platform engineer writing scenarios
  I want to compare an object with the fields I care about, and to see objects go

  @R3.1 @R3.7
  Scenario: A pod matches the partial pod of the fields the scenario cares about
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
        name: website
        labels:
          role: frontend
      spec:
        containers:
          - name: sidecar
            image: envoy
          - name: website
            image: ecorp/website
            env:
              - name: LOG_LEVEL
                value: info
      """
    Then the Pod "website" should match:
      """
      metadata:
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: "${rv:allow-database}"
      spec:
        containers:
          - name: website
            env:
              - name: DB_PORT
                value: "6379"
      """

  @R2.6 @R3.3
  Scenario: A ReplicaSet's status and template, in part, once its controller has caught up
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: allow-database
      spec:
        selector:
          matchLabels:
            tier: frontend
        env:
          - name: DB_PORT
            value: "6379"
      """
    When I create the objects:
      """
      apiVersion: apps/v1
      kind: ReplicaSet
      metadata:
        name: frontend
      spec:
        replicas: 2
        selector:
          matchLabels:
            tier: frontend
        template:
          metadata:
            labels:
              tier: frontend
          spec:
            containers:
              - name: php-redis
                image: gcr.io/google_samples/gb-frontend:v3
                env:
                  - name: GET_HOSTS_FROM
                    value: dns
      """
    Then the ReplicaSet "frontend" should match:
      """
      spec:
        template:
          spec:
            containers:
              - name: php-redis
                env:
                  - name: GET_HOSTS_FROM
                    value: dns
      status:
        replicas: 2
        readyReplicas: 2
      """

  Scenario: A ConfigMap matches in part, and is gone once deleted
    Given the ConfigMap:
      """
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: app-config
      data:
        DB_HOST: db.internal
        DB_NAME: shop
      """
    Then the ConfigMap "app-config" should match:
      """
      data:
        DB_NAME: shop
      """
    When I delete the ConfigMap "app-config"
    Then the ConfigMap "app-config" should not exist
