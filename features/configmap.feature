@R3.1 @R3.2 @R3.3 @R3.7
Feature: Pod spec with a ConfigMap
  In order to hand a service's whole configuration to the pods that use it
  As a platform engineer
  I want a PodPreset to inject env vars, an envFrom ConfigMap and a secret volume

  Scenario: env, envFrom, volumes and mounts are all injected
    Given the ConfigMap:
      """
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: etcd-env-config
      data:
        number_of_members: "1"
        initial_cluster_state: new
        initial_cluster_token: DUMMY_ETCD_INITIAL_CLUSTER_TOKEN
        discovery_token: DUMMY_ETCD_DISCOVERY_TOKEN
        discovery_url: http://etcd_discovery:2379
        etcdctl_peers: http://etcd:2379
        duplicate_key: FROM_CONFIG_MAP
        REPLACE_ME: "a value"
      """
    And the PodPreset:
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
          - name: duplicate_key
            value: FROM_ENV
          - name: expansion
            value: $(REPLACE_ME)
        envFrom:
          - configMapRef:
              name: etcd-env-config
        volumeMounts:
          - mountPath: /cache
            name: cache-volume
          - mountPath: /etc/app/config.json
            readOnly: true
            name: secret-volume
        volumes:
          - name: cache-volume
            emptyDir: {}
          - name: secret-volume
            secret:
              secretName: config-details
      """
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
              - name: duplicate_key
                value: FROM_ENV
              - name: expansion
                value: $(REPLACE_ME)
            envFrom:
              - configMapRef:
                  name: etcd-env-config
            volumeMounts:
              - mountPath: /cache
                name: cache-volume
              - mountPath: /etc/app/config.json
                readOnly: true
                name: secret-volume
        volumes:
          - name: cache-volume
            emptyDir: {}
          - name: secret-volume
            secret:
              secretName: config-details
      """
    And the container "website" of pod "website" should see the environment:
      | name                  | value                            |
      | DB_PORT               | 6379                             |
      | duplicate_key         | FROM_ENV                         |
      | expansion             | a value                          |
      | REPLACE_ME            | a value                          |
      | number_of_members     | 1                                |
      | initial_cluster_state | new                              |
      | initial_cluster_token | DUMMY_ETCD_INITIAL_CLUSTER_TOKEN |
      | discovery_token       | DUMMY_ETCD_DISCOVERY_TOKEN       |
      | discovery_url         | http://etcd_discovery:2379       |
      | etcdctl_peers         | http://etcd:2379                 |
