Feature: settle windows
  A check that something does not happen watches for the run's settle
  window, or for the window its step names (settle_test.go reads the
  windows back from the checks).

  Background:
    Given I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: p
      spec:
        containers:
          - name: c
            image: i
      """

  Scenario: the run's window
    Then the pod "p" should have no events with reason "PodPresetConflict"
    And the Pod "p" should stay as submitted

  Scenario: the step's own window
    Then the pod "p" should have no events with reason "PodPresetConflict" for 150ms
    And the Pod "p" should stay as submitted for 250ms

  Scenario: a window that is not a duration
    Then the pod "p" should have no events with reason "PodPresetConflict" for soon

  Scenario: a change between checks starts a new window
    Then the pod "p" should have no events with reason "PodPresetConflict"
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: q
      spec:
        containers:
          - name: c
            image: i
      """
    Then the Pod "q" should stay as submitted
