@R2.6 @serial
Feature: DaemonSets
  In order to give node agents their settings
  As a platform engineer
  I want the pod a DaemonSet runs on each node to be mutated, and the DaemonSet itself never

  Scenario: One mutated pod per node of a 3-node cluster
    Given the cluster has 3 nodes
    And the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: log-shipping
      spec:
        selector:
          matchLabels:
            app: agent
        env:
          - name: LOG_ENDPOINT
            value: logs.example:514
        volumeMounts:
          - mountPath: /var/spool/agent
            name: spool
        volumes:
          - name: spool
            emptyDir: {}
      """
    When I create the objects:
      """
      apiVersion: apps/v1
      kind: DaemonSet
      metadata:
        name: agent
      spec:
        selector:
          matchLabels:
            app: agent
        template:
          metadata:
            labels:
              app: agent
          spec:
            containers:
              - name: agent
                image: ecorp/agent
      """
    Then 3 pods owned by the DaemonSet "agent" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        labels:
          app: agent
        annotations:
          podpreset.admission.kubernetes.io/podpreset-log-shipping: "${rv:log-shipping}"
      spec:
        containers:
          - name: agent
            image: ecorp/agent
            env:
              - name: LOG_ENDPOINT
                value: logs.example:514
            volumeMounts:
              - mountPath: /var/spool/agent
                name: spool
        volumes:
          - name: spool
            emptyDir: {}
      """
    And each simulated node should run one pod of the DaemonSet "agent"
    And the DaemonSet "agent" should be as submitted

  Scenario: The node count is a scenario's choice
    Given the cluster has 4 nodes
    When I create the objects:
      """
      apiVersion: apps/v1
      kind: DaemonSet
      metadata:
        name: agent
      spec:
        selector:
          matchLabels:
            app: agent
        template:
          metadata:
            labels:
              app: agent
          spec:
            containers:
              - name: agent
                image: ecorp/agent
      """
    Then the DaemonSet "agent" should have 4 ready pods
    And each simulated node should run one pod of the DaemonSet "agent"
