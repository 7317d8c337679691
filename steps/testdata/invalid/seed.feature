Feature: The seed proposal's YAML, verbatim, is rejected with a clear error
  In order to fix my manifests quickly
  As a scenario author
  I want bad YAML reported with its file, line and problem

  Scenario: Simple example preset with the proposal's apiVersion
    Given the PodPreset:
      """
      kind: PodPreset
      apiVersion: settings/v1alpha1
      metadata:
        name: allow-database
      spec:
        selector:
          matchLabels:
            role: frontend
      """

  Scenario: Simple example preset with an unquoted number
    Given the PodPreset:
      """
      kind: PodPreset
      apiVersion: settings.k8s.io/v1alpha1
      metadata:
        name: allow-database
      spec:
        env:
          - name: DB_PORT
            value: 6379
      """

  Scenario: ConfigMap example preset with secretName directly under the volume
    Given the PodPreset:
      """
      kind: PodPreset
      apiVersion: settings.k8s.io/v1alpha1
      metadata:
        name: allow-database
      spec:
        selector:
          matchLabels:
            role: frontend
        volumeMounts:
          - mountPath: /etc/app/config.json
            readOnly: true
            name: secret-volume
        volumes:
          - name: secret-volume
            secretName: config-details
      """

  Scenario: ConfigMap example preset with name beside configMapRef
    Given the PodPreset:
      """
      kind: PodPreset
      apiVersion: settings.k8s.io/v1alpha1
      metadata:
        name: allow-database
      spec:
        selector:
          matchLabels:
            role: frontend
        envFrom:
          - configMapRef:
            name: etcd-env-config
      """

  Scenario: ReplicaSet example with the proposal's apiVersion
    When I create the objects:
      """
      apiVersion: settings/v1alpha1
      kind: ReplicaSet
      metadata:
        name: frontend
      spec:
        replicas: 3
      """

  Scenario: Conflict example pod with volumes under ports
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
            volumeMounts:
              - mountPath: /cache
                name: cache-volume
            ports:
        volumes:
          - name: cache-volume
            emptyDir: {}
              - containerPort: 80
      """

  Scenario: A DocString that is not YAML
    Given the objects:
      """
      {this is: [not, yaml
      """

  Scenario: A pod step given a PodPreset
    When I create the pod:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: allow-database
      spec:
        selector: {}
        env:
          - name: A
            value: "1"
      """

  Scenario: A document without a kind
    Given the objects:
      """
      apiVersion: v1
      metadata:
        name: nameless
      """
