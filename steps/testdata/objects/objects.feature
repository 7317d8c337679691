Feature: should match and should not exist, when they fail
  objects_test.go checks each scenario fails with the message it names.

  Background:
    Given the ConfigMap:
      """
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: app-config
      data:
        DB_HOST: db.internal
      """
    And I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
      spec:
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: DB_PORT
                value: "6379"
      """

  Scenario: a keyed item's value differs
    Then the Pod "website" should match:
      """
      spec:
        containers:
          - name: website
            env:
              - name: DB_PORT
                value: "5432"
      """

  Scenario: a keyed item is missing
    Then the Pod "website" should match:
      """
      spec:
        containers:
          - name: proxy
      """

  Scenario: a misspelt field
    Then the Pod "website" should match:
      """
      spec:
        containres:
          - name: website
      """

  Scenario: another kind written in the DocString
    Then the ConfigMap "app-config" should match:
      """
      apiVersion: v1
      kind: Secret
      """

  Scenario: an object that does not exist
    Then the ConfigMap "nowhere" should match:
      """
      data: {}
      """

  Scenario: an object that exists
    Then the ConfigMap "app-config" should not exist

  Scenario: an unknown kind
    Then the Gizmo "g" should not exist
