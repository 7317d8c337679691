Feature: Which pods a preset reaches
  In order to trust that a preset reaches exactly the pods it names
  As a platform engineer
  I want every "left alone" checked beside a pod that the same preset does mutate

  Every scenario here has a positive control: a pod that the implementation
  must mutate, next to the pod it must leave alone, so that an
  implementation that mutates nothing fails too.

  Background:
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: allow-database}
      spec:
        selector: {matchLabels: {role: frontend}}
        env: [{name: DB_PORT, value: "6379"}]
      """

  @R2.4
  Scenario: An excluded pod is left alone while its twin without the annotation is mutated
    When I create the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: excluded
        labels: {role: frontend}
        annotations: {podpreset.admission.kubernetes.io/exclude: "true", team: web}
      spec:
        containers: [{name: app, image: ecorp/website}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: twin, labels: {role: frontend}, annotations: {team: web}}
      spec:
        containers: [{name: app, image: ecorp/website}]
      """
    Then the pod "excluded" should be as submitted
    And the pod "excluded" should have no PodPreset annotations
    And the pod "twin" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: twin
        labels: {role: frontend}
        annotations:
          team: web
          podpreset.admission.kubernetes.io/podpreset-allow-database: ${rv:allow-database}
      spec:
        containers:
          - name: app
            image: ecorp/website
            env: [{name: DB_PORT, value: "6379"}]
      """

  @R2.4
  Scenario: Only the exact string "true" excludes a pod
    When I create the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: capitalised
        labels: {role: frontend}
        annotations: {podpreset.admission.kubernetes.io/exclude: "True"}
      spec:
        containers: [{name: app, image: ecorp/website}]
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: opted-in
        labels: {role: frontend}
        annotations: {podpreset.admission.kubernetes.io/exclude: "false"}
      spec:
        containers: [{name: app, image: ecorp/website}]
      """
    Then the pod "capitalised" should have the annotations:
      | key                                                        | value                |
      | podpreset.admission.kubernetes.io/podpreset-allow-database | ${rv:allow-database} |
    And the pod "opted-in" should have the annotations:
      | key                                                        | value                |
      | podpreset.admission.kubernetes.io/podpreset-allow-database | ${rv:allow-database} |

  @R2.5
  Scenario: A mirror pod is left alone while its twin is mutated
    When I create the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: mirror
        labels: {role: frontend}
        annotations: {kubernetes.io/config.mirror: "5d41402abc4b2a76b9719d911017c592"}
      spec:
        nodeName: static-pods-node
        containers: [{name: app, image: ecorp/website}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: twin, labels: {role: frontend}}
      spec:
        containers: [{name: app, image: ecorp/website}]
      """
    Then the pod "mirror" should be as submitted
    And the pod "mirror" should have no PodPreset annotations
    And the pod "twin" should have the annotations:
      | key                                                        | value                |
      | podpreset.admission.kubernetes.io/podpreset-allow-database | ${rv:allow-database} |

  @R2.2
  Scenario: Each pod gets the presets of its own namespace, never another's
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: metrics, namespace: monitoring}
      spec:
        selector: {matchLabels: {role: frontend}}
        env: [{name: METRICS_PORT, value: "9090"}]
      """
    When I create the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: website, labels: {role: frontend}}
      spec:
        containers: [{name: app, image: ecorp/website}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: exporter, namespace: monitoring, labels: {role: frontend}}
      spec:
        containers: [{name: app, image: ecorp/exporter}]
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels: {role: frontend}
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: ${rv:allow-database}
      spec:
        containers:
          - name: app
            image: ecorp/website
            env: [{name: DB_PORT, value: "6379"}]
      """
    And the pod "exporter" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: exporter
        namespace: monitoring
        labels: {role: frontend}
        annotations:
          podpreset.admission.kubernetes.io/podpreset-metrics: ${rv:metrics}
      spec:
        containers:
          - name: app
            image: ecorp/exporter
            env: [{name: METRICS_PORT, value: "9090"}]
      """

  # A namespace whose name extends another's already made (default, by the
  # Background; default-staging) is made with a name that extends the
  # other's on the cluster too.
  @R2.2
  Scenario: A pod gets no preset of a namespace whose name begins with its own namespace's
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: staging-database, namespace: default-staging}
      spec:
        selector: {matchLabels: {role: frontend}}
        env: [{name: DB_HOST, value: staging-db}]
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: website, labels: {role: frontend}}
      spec:
        containers: [{name: app, image: ecorp/website}]
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels: {role: frontend}
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: ${rv:allow-database}
      spec:
        containers:
          - name: app
            image: ecorp/website
            env: [{name: DB_PORT, value: "6379"}]
      """

  @R2.3
  Scenario: Of two presets in one namespace, a pod gets only the one that matches it
    Given the objects:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: a-backend}
      spec:
        selector: {matchLabels: {role: backend}}
        env: [{name: QUEUE, value: jobs}]
      ---
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: z-backend}
      spec:
        selector: {matchLabels: {role: backend}}
        env: [{name: WORKERS, value: "4"}]
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: website, labels: {role: frontend}}
      spec:
        containers: [{name: app, image: ecorp/website}]
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels: {role: frontend}
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: ${rv:allow-database}
      spec:
        containers:
          - name: app
            image: ecorp/website
            env: [{name: DB_PORT, value: "6379"}]
      """

  @R1.3
  Scenario: The empty selector is allowed and selects every pod of the namespace
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: everyone}
      spec:
        selector: {}
        env: [{name: A, value: "1"}]
      """
    Then the request should succeed
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: unlabelled}
      spec:
        containers: [{name: app, image: ecorp/website}]
      """
    Then the pod "unlabelled" should have the annotations:
      | key                                                  | value          |
      | podpreset.admission.kubernetes.io/podpreset-everyone | ${rv:everyone} |

  @R2.3
  Scenario Outline: Every selector feature decides: <selector> passes over <passed over>
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: selected}
      spec:
        selector: <selector>
        env: [{name: SELECTED, value: "yes"}]
      """
    When I create the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: chosen, labels: <chosen>}
      spec:
        containers: [{name: app, image: ecorp/website}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: passed-over, labels: <passed over>}
      spec:
        containers: [{name: app, image: ecorp/website}]
      """
    Then the pod "chosen" should have the annotations:
      | key                                                  | value          |
      | podpreset.admission.kubernetes.io/podpreset-selected | ${rv:selected} |
    And the pod "passed-over" should be as submitted
    And the pod "passed-over" should have no PodPreset annotations

    Examples:
      | selector                                                                                | chosen                           | passed over                      |
      | {matchLabels: {tier: web, env: prod}}                                                   | {tier: web, env: prod, app: shop} | {tier: web, env: dev}            |
      | {matchLabels: {tier: web, env: prod}}                                                   | {tier: web, env: prod}           | {tier: api, env: prod}           |
      | {matchExpressions: [{key: tier, operator: In, values: [web, api]}]}                     | {tier: api}                      | {tier: db}                       |
      | {matchExpressions: [{key: tier, operator: NotIn, values: [db]}]}                        | {tier: web}                      | {tier: db}                       |
      | {matchExpressions: [{key: canary, operator: Exists}]}                                   | {canary: "false"}                | {tier: web}                      |
      | {matchExpressions: [{key: canary, operator: DoesNotExist}]}                             | {tier: web}                      | {canary: "true"}                 |
      | {matchLabels: {tier: web}, matchExpressions: [{key: env, operator: In, values: [prod]}]} | {tier: web, env: prod}           | {tier: web, env: dev}            |
      | {matchLabels: {Tier: Web}}                                                              | {Tier: Web}                      | {tier: web}                      |
