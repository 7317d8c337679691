@R2.6 @R3.3 @R3.7
Feature: ReplicaSet with a pod template
  In order to have pods created by controllers get what they need
  As a platform engineer
  I want every pod a ReplicaSet creates to be mutated, and the ReplicaSet itself never

  Scenario: All pods of a ReplicaSet are mutated; its template is not
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
      kind: ReplicaSet
      metadata:
        name: frontend
      spec:
        replicas: 3
        selector:
          matchLabels:
            tier: frontend
          matchExpressions:
            - {key: tier, operator: In, values: [frontend]}
        template:
          metadata:
            labels:
              app: guestbook
              tier: frontend
          spec:
            containers:
              - name: php-redis
                image: gcr.io/google_samples/gb-frontend:v3
                resources:
                  requests:
                    cpu: 100m
                    memory: 100Mi
                env:
                  - name: GET_HOSTS_FROM
                    value: dns
                ports:
                  - containerPort: 80
      """
    Then 3 pods owned by the ReplicaSet "frontend" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        labels:
          app: guestbook
          tier: frontend
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: "${rv:allow-database}"
      spec:
        containers:
          - name: php-redis
            image: gcr.io/google_samples/gb-frontend:v3
            resources:
              requests:
                cpu: 100m
                memory: 100Mi
            env:
              - name: GET_HOSTS_FROM
                value: dns
              - name: DB_PORT
                value: "6379"
            volumeMounts:
              - mountPath: /cache
                name: cache-volume
            ports:
              - containerPort: 80
        volumes:
          - name: cache-volume
            emptyDir: {}
      """
    And the ReplicaSet "frontend" should be as submitted

  @R4.2 @R4.3 @events
  Scenario: A conflict in a ReplicaSet's pods leaves them unchanged and is reported on the ReplicaSet
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
          - name: GET_HOSTS_FROM
            value: env
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
    Then 2 pods owned by the ReplicaSet "frontend" should be:
      """
      apiVersion: v1
      kind: Pod
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
    And the ReplicaSet "frontend" should have the event:
      | type    | reason            | message                                                                           |
      | Warning | PodPresetConflict | Conflict on pod preset allow-database: duplicate env GET_HOSTS_FROM in container php-redis |
    And the ReplicaSet "frontend" should be as submitted

  @R2.6
  Scenario: Pods added by scaling a ReplicaSet up are mutated like the first
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
    And the objects:
      """
      apiVersion: apps/v1
      kind: ReplicaSet
      metadata:
        name: frontend
      spec:
        replicas: 1
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
      """
    And the ReplicaSet "frontend" should have 1 ready pod
    When I scale the ReplicaSet "frontend" to 4
    Then 4 pods owned by the ReplicaSet "frontend" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        labels:
          tier: frontend
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: "${rv:allow-database}"
      spec:
        containers:
          - name: php-redis
            image: gcr.io/google_samples/gb-frontend:v3
            env:
              - name: DB_PORT
                value: "6379"
      """
