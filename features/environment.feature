@R3.1 @environment
Feature: What the container sees
  In order to know that a preset gives an application the settings it needs
  As an application developer
  I want to see the environment a container ends up with, as the kubelet makes it

  Scenario: A preset hands over a database Service's address and its credentials from a Secret
    Given the objects:
      """
      apiVersion: v1
      kind: Secret
      metadata:
        name: db-credentials
      stringData:
        username: shop
        password: s3cr3t
      ---
      apiVersion: v1
      kind: Service
      metadata:
        name: postgres
      spec:
        clusterIP: 10.0.0.20
        ports:
          - name: postgres
            port: 5432
      """
    And the PodPreset:
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
            value: $(POSTGRES_SERVICE_HOST)
          - name: DB_PORT
            value: $(POSTGRES_SERVICE_PORT_POSTGRES)
          - name: DB_USER
            valueFrom:
              secretKeyRef:
                name: db-credentials
                key: username
          - name: DB_PASSWORD
            valueFrom:
              secretKeyRef:
                name: db-credentials
                key: password
          - name: DATABASE_URL
            value: postgres://$(DB_USER):$(DB_PASSWORD)@$(DB_HOST):$(DB_PORT)/shop
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
    Then the container "website" of pod "website" should see the environment:
      | name         | value                                      |
      | DB_HOST      | 10.0.0.20                                  |
      | DB_PORT      | 5432                                       |
      | DB_USER      | shop                                       |
      | DB_PASSWORD  | s3cr3t                                     |
      | DATABASE_URL | postgres://shop:s3cr3t@10.0.0.20:5432/shop |

  Scenario: Every Service of the namespace with a cluster IP is announced, as in the service links proposal
    Given the objects:
      """
      apiVersion: v1
      kind: Service
      metadata:
        name: redis-master
      spec:
        clusterIP: 10.0.0.11
        ports:
          - port: 6379
      ---
      apiVersion: v1
      kind: Service
      metadata:
        name: redis-replicas
      spec:
        clusterIP: None
        ports:
          - port: 6379
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
      spec:
        containers:
          - name: website
            image: ecorp/website
      """
    Then the container "website" of pod "website" should see the environment:
      | name                            | value                |
      | REDIS_MASTER_SERVICE_HOST       | 10.0.0.11            |
      | REDIS_MASTER_SERVICE_PORT       | 6379                 |
      | REDIS_MASTER_PORT               | tcp://10.0.0.11:6379 |
      | REDIS_MASTER_PORT_6379_TCP      | tcp://10.0.0.11:6379 |
      | REDIS_MASTER_PORT_6379_TCP_PROTO | tcp                 |
      | REDIS_MASTER_PORT_6379_TCP_PORT | 6379                 |
      | REDIS_MASTER_PORT_6379_TCP_ADDR | 10.0.0.11            |
      | KUBERNETES_SERVICE_HOST         | 10.0.0.1             |
    And the container "website" of pod "website" should not see the variables:
      | name                        |
      | REDIS_REPLICAS_SERVICE_HOST |
      | REDIS_REPLICAS_PORT         |

  Scenario: With enableServiceLinks false only the API server's own Service is announced
    Given the Service:
      """
      apiVersion: v1
      kind: Service
      metadata:
        name: redis-master
      spec:
        clusterIP: 10.0.0.12
        ports:
          - port: 6379
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
      spec:
        enableServiceLinks: false
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: MODE
                value: production
      """
    Then the container "website" of pod "website" should see exactly the environment:
      | name                          | value               |
      | MODE                          | production          |
      | KUBERNETES_SERVICE_HOST       | 10.0.0.1            |
      | KUBERNETES_SERVICE_PORT       | 443                 |
      | KUBERNETES_SERVICE_PORT_HTTPS | 443                 |
      | KUBERNETES_PORT               | tcp://10.0.0.1:443  |
      | KUBERNETES_PORT_443_TCP       | tcp://10.0.0.1:443  |
      | KUBERNETES_PORT_443_TCP_PROTO | tcp                 |
      | KUBERNETES_PORT_443_TCP_PORT  | 443                 |
      | KUBERNETES_PORT_443_TCP_ADDR  | 10.0.0.1            |

  Scenario: A preset whose ConfigMap does not exist yet: the container waits until it does
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: app-config
      spec:
        selector:
          matchLabels:
            role: frontend
        envFrom:
          - configMapRef:
              name: app-config
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
    Then the container "website" of pod "website" should fail to start with "CreateContainerConfigError" and a message containing "configmap \"app-config\" not found"
    When I create the objects:
      """
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: app-config
      data:
        GREETING: hello
      """
    Then the pod "website" should become ready
    And the container "website" of pod "website" should see the environment:
      | name     | value |
      | GREETING | hello |
