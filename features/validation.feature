@R1.8
Feature: PodPreset validation
  In order to find a broken preset when I write it, not when pods fail
  As a platform engineer
  I want the API server to reject an invalid PodPreset with a message naming the field

  @R1.3
  Scenario: The selector is required
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: no-selector}
      spec:
        env: [{name: A, value: "1"}]
      """
    Then the request should be rejected with a message containing "spec.selector: Required value"

  @R1.3
  Scenario Outline: The selector must be a valid label selector: <selector> is refused
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: bad-selector}
      spec:
        selector: <selector>
        env: [{name: A, value: "1"}]
      """
    Then the request should be rejected with a message containing "<path>"

    Examples:
      | selector                                                           | path                                         |
      | {matchExpressions: [{key: app, operator: Inn, values: [web]}]}     | spec.selector.matchExpressions[0].operator   |
      | {matchExpressions: [{key: app, operator: In}]}                     | spec.selector.matchExpressions[0].values     |
      | {matchExpressions: [{key: app, operator: Exists, values: [web]}]}  | spec.selector.matchExpressions[0].values     |
      | {matchExpressions: [{key: app, operator: NotIn, values: ["web!"]}]} | spec.selector.matchExpressions[0].values[0] |
      | {matchLabels: {-app: web}}                                         | spec.selector.matchLabels                    |

  @R1.4
  Scenario: A preset must inject something
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: empty}
      spec:
        selector: {}
      """
    Then the request should be rejected with a message containing "at least one of env, envFrom, volumes or volumeMounts must be set"

  @R1.5
  Scenario: A volume mount must name a volume of the same preset
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: dangling-mount}
      spec:
        selector: {}
        volumes: [{name: cache, emptyDir: {}}]
        volumeMounts:
          - {name: cache, mountPath: /cache}
          - {name: other, mountPath: /other}
      """
    Then the request should be rejected with a message containing "spec.volumeMounts[1].name: \"other\" does not name a volume of this preset"

  @R1.5
  Scenario: Volume names are unique
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: twice}
      spec:
        selector: {}
        volumes:
          - {name: cache, emptyDir: {}}
          - {name: cache, emptyDir: {}}
      """
    Then the request should be rejected with a message containing "spec.volumes[1]: Duplicate value"

  @R1.5
  Scenario: Volume names are DNS-1123 labels
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: bad-volume-name}
      spec:
        selector: {}
        volumes: [{name: Cache_Volume, emptyDir: {}}]
      """
    Then the request should be rejected with a message containing "spec.volumes[0].name"

  @R1.5
  Scenario: Mount paths are unique within a preset
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: same-path}
      spec:
        selector: {}
        volumes: [{name: a, emptyDir: {}}, {name: b, emptyDir: {}}]
        volumeMounts:
          - {name: a, mountPath: /data}
          - {name: b, mountPath: /data}
      """
    Then the request should be rejected with a message containing "spec.volumeMounts[1]: Duplicate value"

  @R1.5
  Scenario: Mount names are unique within a preset
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: same-mount}
      spec:
        selector: {}
        volumes: [{name: a, emptyDir: {}}]
        volumeMounts:
          - {name: a, mountPath: /data}
          - {name: a, mountPath: /other}
      """
    Then the request should be rejected with a message containing "spec.volumeMounts[1].name: Duplicate value"

  @R1.5
  Scenario: Env var names are unique within a preset
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: same-env}
      spec:
        selector: {}
        env:
          - {name: DB_HOST, value: db}
          - {name: DB_HOST, value: other}
      """
    Then the request should be rejected with a message containing "spec.env[1]: Duplicate value"

  @R1.5
  Scenario: envFrom keys are unique within a preset
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: same-source}
      spec:
        selector: {}
        envFrom:
          - {prefix: DB_, configMapRef: {name: db}}
          - {prefix: DB_, configMapRef: {name: db, optional: true}}
      """
    Then the request should be rejected with a message containing "spec.envFrom[1]: Duplicate value"

  @R1.5
  Scenario: One source under two prefixes is two keys
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: two-prefixes}
      spec:
        selector: {}
        envFrom:
          - {prefix: DB_, configMapRef: {name: db}}
          - {prefix: CACHE_, configMapRef: {name: db}}
          - {secretRef: {name: db}}
      """
    Then the request should succeed

  @R1.5
  Scenario: Env var names are valid
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: bad-env}
      spec:
        selector: {}
        env: [{name: "A=B", value: "1"}]
      """
    Then the request should be rejected with a message containing "spec.env[0].name"

  @R1.5
  Scenario: An envFrom entry sets exactly one source
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: two-sources}
      spec:
        selector: {}
        envFrom:
          - configMapRef: {name: a}
            secretRef: {name: b}
      """
    Then the request should be rejected with a message containing "spec.envFrom[0]: Invalid value: must set exactly one of configMapRef or secretRef"

  @R1.2
  Scenario: A volume is validated with the core schema, as in a pod
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: no-path}
      spec:
        selector: {}
        volumes: [{name: host, hostPath: {}}]
      """
    Then the request should be rejected with a message containing "spec.volumes[0].hostPath.path: Required value"

  @R1.6
  Scenario: The name is at most 53 characters
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: a-preset-name-that-is-exactly-fifty-four-characters-xx}
      spec:
        selector: {}
        env: [{name: A, value: "1"}]
      """
    Then the request should be rejected with a message containing "metadata.name: Too long"

  @R1.7
  Scenario: The spec is immutable, the metadata is not
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: fixed}
      spec:
        selector: {}
        env: [{name: A, value: "1"}]
      """
    When I try to update the PodPreset "fixed" to:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: fixed}
      spec:
        selector: {}
        env: [{name: A, value: "2"}]
      """
    Then the request should be rejected with a message containing "spec: Invalid value: spec is immutable: delete and recreate the PodPreset to change it"
    When I try to update the PodPreset "fixed" to:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: fixed
        labels: {owner: platform}
      spec:
        selector: {}
        env: [{name: A, value: "1"}]
      """
    Then the request should succeed
