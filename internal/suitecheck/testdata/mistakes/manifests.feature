@R3.1
Feature: mistakes

  Scenario: a misspelt field and bad YAML
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: p
      spec:
        selector: {}
        env: [{name: A, value: "1"}]
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: web
      spec:
        containres:
        - name: c
          image: busybox
      """
    And I try to create:
      """
      apiVersion: v1
      kind: Pod
      metadata: [name: x
      """
    Then the pod "web" should be as submited
