@R3.7
Feature: references to what the scenario never made

  Scenario: a typo in a pod's name and in a preset's, an unknown substitution
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: allow-database
      spec:
        selector: {}
        env: [{name: A, value: "1"}]
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        annotations: {note: "${namespace}"}
      spec:
        containers: [{name: c, image: busybox}]
      """
    Then the pod "websit" should have the annotations:
      | key                                                        | value                |
      | podpreset.admission.kubernetes.io/podpreset-allow-database | ${rv:allow-databse} |
    And the pod "website" should have the annotations:
      | key                                                        | value                |
      | podpreset.admission.kubernetes.io/podpreset-allow-database | ${rv:allow-database} |

  Scenario: a StatefulSet's pods are the scenario's, a preset named before it exists is not
    Given the objects:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata: {name: web}
      spec:
        serviceName: web
        replicas: 1
        selector: {matchLabels: {app: web}}
        template:
          metadata: {labels: {app: web}}
          spec:
            containers: [{name: c, image: busybox}]
      """
    Then the pod "web-0" should have the annotations:
      | key                                             | value         |
      | podpreset.admission.kubernetes.io/podpreset-late | ${rv:late} |
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: late}
      spec:
        selector: {}
      """
