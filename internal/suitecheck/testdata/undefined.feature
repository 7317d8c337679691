@R3.1
Feature: typo
  Scenario: a typo
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata: {name: p}
      spec: {selector: {}, env: [{name: A, value: "1"}]}
      """
    When I craete the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: web}
      spec: {containers: [{name: c, image: busybox}]}
      """
