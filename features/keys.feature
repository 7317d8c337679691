Feature: How injected items are keyed, compared and merged
  In order to predict what a pod ends up with when it and several presets name the same things
  As an application developer
  I want every container mutated, items compared by their keys in their defaulted form, and clashes to change nothing

  @R3.2 @R3.3
  Scenario: Every app container gets the preset, not only the first
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: shared}
      spec:
        selector: {matchLabels: {role: frontend}}
        env: [{name: DB_PORT, value: "6379"}]
        envFrom: [{configMapRef: {name: settings}}]
        volumes: [{name: cache, emptyDir: {}}]
        volumeMounts: [{name: cache, mountPath: /cache}]
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: website, labels: {role: frontend}}
      spec:
        containers:
          - {name: web, image: ecorp/website}
          - {name: proxy, image: ecorp/proxy, env: [{name: UPSTREAM, value: web}]}
          - {name: logs, image: ecorp/logs}
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels: {role: frontend}
        annotations: {podpreset.admission.kubernetes.io/podpreset-shared: "${rv:shared}"}
      spec:
        containers:
          - name: web
            image: ecorp/website
            env: [{name: DB_PORT, value: "6379"}]
            envFrom: [{configMapRef: {name: settings}}]
            volumeMounts: [{name: cache, mountPath: /cache}]
          - name: proxy
            image: ecorp/proxy
            env: [{name: UPSTREAM, value: web}, {name: DB_PORT, value: "6379"}]
            envFrom: [{configMapRef: {name: settings}}]
            volumeMounts: [{name: cache, mountPath: /cache}]
          - name: logs
            image: ecorp/logs
            env: [{name: DB_PORT, value: "6379"}]
            envFrom: [{configMapRef: {name: settings}}]
            volumeMounts: [{name: cache, mountPath: /cache}]
        volumes: [{name: cache, emptyDir: {}}]
      """

  @R3.5 @R3.7
  Scenario: Keys are compared exactly: env names by case, envFrom by prefix and by source kind
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: keys}
      spec:
        selector: {matchLabels: {role: frontend}}
        env: [{name: DB_PORT, value: "6379"}]
        envFrom:
          - {prefix: B_, configMapRef: {name: settings}}
          - {secretRef: {name: settings}}
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: website, labels: {role: frontend}, annotations: {owner: team-web}}
      spec:
        containers:
          - name: web
            image: ecorp/website
            env: [{name: db_port, value: "1"}]
            envFrom: [{prefix: A_, configMapRef: {name: settings}}, {configMapRef: {name: settings}}]
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels: {role: frontend}
        annotations:
          owner: team-web
          podpreset.admission.kubernetes.io/podpreset-keys: "${rv:keys}"
      spec:
        containers:
          - name: web
            image: ecorp/website
            env: [{name: db_port, value: "1"}, {name: DB_PORT, value: "6379"}]
            envFrom:
              - {prefix: A_, configMapRef: {name: settings}}
              - {configMapRef: {name: settings}}
              - {prefix: B_, configMapRef: {name: settings}}
              - {secretRef: {name: settings}}
      """

  @R3.4 @R3.7
  Scenario: Items equal to the pod's once the API server has defaulted them are skipped, not conflicts
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: defaults}
      spec:
        selector: {matchLabels: {role: frontend}}
        env:
          - name: POD_NAME
            valueFrom: {fieldRef: {fieldPath: metadata.name}}
        volumes:
          - {name: creds, secret: {secretName: creds, defaultMode: 420}}
        volumeMounts:
          - {name: creds, mountPath: /creds}
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: website, labels: {role: frontend}}
      spec:
        containers:
          - name: web
            image: ecorp/website
            env:
              - name: POD_NAME
                valueFrom: {fieldRef: {apiVersion: v1, fieldPath: metadata.name}}
            volumeMounts: [{name: creds, mountPath: /creds}]
        volumes:
          - {name: creds, secret: {secretName: creds}}
      """
    Then the pod "website" should have no events with reason "PodPresetConflict"
    And the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels: {role: frontend}
        annotations: {podpreset.admission.kubernetes.io/podpreset-defaults: "${rv:defaults}"}
      spec:
        containers:
          - name: web
            image: ecorp/website
            env:
              - name: POD_NAME
                valueFrom: {fieldRef: {apiVersion: v1, fieldPath: metadata.name}}
            volumeMounts: [{name: creds, mountPath: /creds}]
        volumes:
          - {name: creds, secret: {secretName: creds}}
      """

  @R3.4 @R3.6
  Scenario: An item two presets both inject is added once
    Given the objects:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: b-cache}
      spec:
        selector: {matchLabels: {role: frontend}}
        env: [{name: CACHE, value: "on"}]
        volumes: [{name: shared, emptyDir: {}}]
        volumeMounts: [{name: shared, mountPath: /shared}]
      ---
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: a-database}
      spec:
        selector: {matchLabels: {role: frontend}}
        env: [{name: DB_PORT, value: "6379"}]
        volumes: [{name: shared, emptyDir: {}}]
        volumeMounts: [{name: shared, mountPath: /shared}]
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: website, labels: {role: frontend}}
      spec:
        containers: [{name: web, image: ecorp/website}]
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels: {role: frontend}
        annotations:
          podpreset.admission.kubernetes.io/podpreset-a-database: "${rv:a-database}"
          podpreset.admission.kubernetes.io/podpreset-b-cache: "${rv:b-cache}"
      spec:
        containers:
          - name: web
            image: ecorp/website
            env: [{name: DB_PORT, value: "6379"}, {name: CACHE, value: "on"}]
            volumeMounts: [{name: shared, mountPath: /shared}]
        volumes: [{name: shared, emptyDir: {}}]
      """

  @R3.4 @envFromConflicts
  Scenario: envFrom entries two presets both inject are added once
    Given the objects:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: b-cache}
      spec:
        selector: {matchLabels: {role: frontend}}
        envFrom: [{configMapRef: {name: settings}}, {prefix: CACHE_, secretRef: {name: cache}}]
      ---
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: a-database}
      spec:
        selector: {matchLabels: {role: frontend}}
        envFrom: [{configMapRef: {name: settings}}, {prefix: CACHE_, secretRef: {name: cache}}]
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: website, labels: {role: frontend}}
      spec:
        containers: [{name: web, image: ecorp/website}]
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels: {role: frontend}
        annotations:
          podpreset.admission.kubernetes.io/podpreset-a-database: "${rv:a-database}"
          podpreset.admission.kubernetes.io/podpreset-b-cache: "${rv:b-cache}"
      spec:
        containers:
          - name: web
            image: ecorp/website
            envFrom: [{configMapRef: {name: settings}}, {prefix: CACHE_, secretRef: {name: cache}}]
      """

  @R3.8 @R3.7
  Scenario: A pod that already carries a preset's items and annotation is admitted unchanged
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: again}
      spec:
        selector: {matchLabels: {role: frontend}}
        env: [{name: DB_PORT, value: "6379"}]
        volumes: [{name: cache, emptyDir: {}}]
        volumeMounts: [{name: cache, mountPath: /cache}]
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels: {role: frontend}
        annotations: {podpreset.admission.kubernetes.io/podpreset-again: "${rv:again}"}
      spec:
        containers:
          - name: web
            image: ecorp/website
            env: [{name: DB_PORT, value: "6379"}]
            volumeMounts: [{name: cache, mountPath: /cache}]
        volumes: [{name: cache, emptyDir: {}}]
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels: {role: frontend}
        annotations: {podpreset.admission.kubernetes.io/podpreset-again: "${rv:again}"}
      spec:
        containers:
          - name: web
            image: ecorp/website
            env: [{name: DB_PORT, value: "6379"}]
            volumeMounts: [{name: cache, mountPath: /cache}]
        volumes: [{name: cache, emptyDir: {}}]
      """

  @R4.1 @R4.2
  Scenario Outline: Two presets that clash on <key> change nothing, while either alone applies
    Given the objects:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: a-first}
      spec: {selector: {matchLabels: {first: "yes"}}, <first>}
      ---
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: b-second}
      spec: {selector: {matchLabels: {second: "yes"}}, <second>}
      """
    When I create the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: both, labels: {first: "yes", second: "yes"}}
      spec:
        containers: [{name: app, image: ecorp/website}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: first-only, labels: {first: "yes"}}
      spec:
        containers: [{name: app, image: ecorp/website}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: second-only, labels: {second: "yes"}}
      spec:
        containers: [{name: app, image: ecorp/website}]
      """
    Then the pod "both" should have the event:
      | type    | reason            | message                                     |
      | Warning | PodPresetConflict | Conflict on pod preset b-second: <message> |
    And the pod "both" should be as submitted
    And the pod "both" should have no PodPreset annotations
    And the pod "first-only" should have the annotations:
      | key                                                 | value         |
      | podpreset.admission.kubernetes.io/podpreset-a-first | ${rv:a-first} |
    And the pod "second-only" should have the annotations:
      | key                                                  | value          |
      | podpreset.admission.kubernetes.io/podpreset-b-second | ${rv:b-second} |

    Examples:
      | key         | first                                                                                             | second                                                                                             | message                                   |
      | env         | env: [{name: MODE, value: a}]                                                                     | env: [{name: MODE, value: b}]                                                                      | duplicate env MODE in container app       |
      | volumes     | volumes: [{name: data, emptyDir: {}}]                                                             | volumes: [{name: data, configMap: {name: data}}]                                                   | duplicate volume data                     |
      | mount names | volumes: [{name: data, emptyDir: {}}], volumeMounts: [{name: data, mountPath: /a}]                | volumes: [{name: data, emptyDir: {}}], volumeMounts: [{name: data, mountPath: /b}]                 | duplicate volumeMount name data           |
      | mount paths | volumes: [{name: one, emptyDir: {}}], volumeMounts: [{name: one, mountPath: /data}]               | volumes: [{name: two, emptyDir: {}}], volumeMounts: [{name: two, mountPath: /data}]                | duplicate mountPath /data in container app |

    @envFromConflicts
    Examples:
      | key         | first                                                                                             | second                                                                                             | message                                   |
      | envFrom     | envFrom: [{configMapRef: {name: settings}}]                                                       | envFrom: [{configMapRef: {name: settings, optional: true}}]                                        | duplicate envFrom configMapRef settings   |

  @R4.1 @R4.2 @R4.4
  Scenario Outline: A preset that clashes with the pod's own <key> changes nothing, while a pod without it gets the preset
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: clash}
      spec: {selector: {matchLabels: {role: frontend}}, <preset>}
      """
    When I create the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: own, labels: {role: frontend}}
      spec: {containers: [{name: app, image: ecorp/website, <container>}], volumes: [<volumes>]}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: plain, labels: {role: frontend}}
      spec: {containers: [{name: app, image: ecorp/website}]}
      """
    Then the pod "own" should have the event:
      | type    | reason            | message                                  |
      | Warning | PodPresetConflict | Conflict on pod preset clash: <message> |
    And the pod "own" should be as submitted
    And the pod "own" should have no PodPreset annotations
    And the pod "plain" should have the annotations:
      | key                                               | value       |
      | podpreset.admission.kubernetes.io/podpreset-clash | ${rv:clash} |

    Examples:
      | key         | preset                                                                                  | container                                       | volumes                        | message                                         |
      | env         | env: [{name: MODE, value: preset}]                                                      | env: [{name: MODE, value: pod}]                 | {name: pod-data, emptyDir: {}} | duplicate env MODE in container app             |
      | volumes     | volumes: [{name: data, configMap: {name: data}}]                                        | env: [{name: MODE, value: pod}]                 | {name: data, emptyDir: {}}     | duplicate volume data                           |
      | mount names | volumes: [{name: data, emptyDir: {}}], volumeMounts: [{name: data, mountPath: /b}]      | volumeMounts: [{name: data, mountPath: /a}]     | {name: data, emptyDir: {}}     | duplicate volumeMount name data in container app |
      | mount paths | volumes: [{name: cache, emptyDir: {}}], volumeMounts: [{name: cache, mountPath: /data}] | volumeMounts: [{name: data, mountPath: /data}]  | {name: data, emptyDir: {}}     | duplicate mountPath /data in container app      |

    @envFromConflicts
    Examples:
      | key         | preset                                                                                  | container                                       | volumes                        | message                                         |
      | envFrom     | envFrom: [{configMapRef: {name: settings, optional: true}}]                             | envFrom: [{configMapRef: {name: settings}}]     | {name: pod-data, emptyDir: {}} | duplicate envFrom configMapRef settings in container app |
