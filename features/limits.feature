Feature: No limit of its own
  In order to trust presets whatever their names and numbers
  As a platform engineer
  I want the longest names and many presets to behave like any other, up to what the API server accepts

  @R6.4
  Scenario: A preset named at the longest a name may have, with dots, applies under its whole name
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: team.example.database-settings.for-every-frontend-web
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: DB_PORT
            value: "6379"
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
        annotations:
          podpreset.admission.kubernetes.io/podpreset-team.example.database-settings.for-every-frontend-web: "${rv:team.example.database-settings.for-every-frontend-web}"
      spec:
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: DB_PORT
                value: "6379"
      """

  @R6.4
  Scenario: Ten presets that select a pod all apply, in name order
    Given the objects:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: preset-00
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: SETTING_00
            value: "0"
      ---
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: preset-01
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: SETTING_01
            value: "1"
      ---
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: preset-02
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: SETTING_02
            value: "2"
      ---
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: preset-03
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: SETTING_03
            value: "3"
      ---
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: preset-04
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: SETTING_04
            value: "4"
      ---
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: preset-05
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: SETTING_05
            value: "5"
      ---
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: preset-06
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: SETTING_06
            value: "6"
      ---
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: preset-07
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: SETTING_07
            value: "7"
      ---
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: preset-08
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: SETTING_08
            value: "8"
      ---
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: preset-09
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: SETTING_09
            value: "9"
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
        annotations:
          podpreset.admission.kubernetes.io/podpreset-preset-00: "${rv:preset-00}"
          podpreset.admission.kubernetes.io/podpreset-preset-01: "${rv:preset-01}"
          podpreset.admission.kubernetes.io/podpreset-preset-02: "${rv:preset-02}"
          podpreset.admission.kubernetes.io/podpreset-preset-03: "${rv:preset-03}"
          podpreset.admission.kubernetes.io/podpreset-preset-04: "${rv:preset-04}"
          podpreset.admission.kubernetes.io/podpreset-preset-05: "${rv:preset-05}"
          podpreset.admission.kubernetes.io/podpreset-preset-06: "${rv:preset-06}"
          podpreset.admission.kubernetes.io/podpreset-preset-07: "${rv:preset-07}"
          podpreset.admission.kubernetes.io/podpreset-preset-08: "${rv:preset-08}"
          podpreset.admission.kubernetes.io/podpreset-preset-09: "${rv:preset-09}"
      spec:
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: SETTING_00
                value: "0"
              - name: SETTING_01
                value: "1"
              - name: SETTING_02
                value: "2"
              - name: SETTING_03
                value: "3"
              - name: SETTING_04
                value: "4"
              - name: SETTING_05
                value: "5"
              - name: SETTING_06
                value: "6"
              - name: SETTING_07
                value: "7"
              - name: SETTING_08
                value: "8"
              - name: SETTING_09
                value: "9"
      """

  @R6.4
  Scenario: A preset with forty env vars injects every one of them
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: many-settings
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - {name: SETTING_00, value: "0"}
          - {name: SETTING_01, value: "1"}
          - {name: SETTING_02, value: "2"}
          - {name: SETTING_03, value: "3"}
          - {name: SETTING_04, value: "4"}
          - {name: SETTING_05, value: "5"}
          - {name: SETTING_06, value: "6"}
          - {name: SETTING_07, value: "7"}
          - {name: SETTING_08, value: "8"}
          - {name: SETTING_09, value: "9"}
          - {name: SETTING_10, value: "10"}
          - {name: SETTING_11, value: "11"}
          - {name: SETTING_12, value: "12"}
          - {name: SETTING_13, value: "13"}
          - {name: SETTING_14, value: "14"}
          - {name: SETTING_15, value: "15"}
          - {name: SETTING_16, value: "16"}
          - {name: SETTING_17, value: "17"}
          - {name: SETTING_18, value: "18"}
          - {name: SETTING_19, value: "19"}
          - {name: SETTING_20, value: "20"}
          - {name: SETTING_21, value: "21"}
          - {name: SETTING_22, value: "22"}
          - {name: SETTING_23, value: "23"}
          - {name: SETTING_24, value: "24"}
          - {name: SETTING_25, value: "25"}
          - {name: SETTING_26, value: "26"}
          - {name: SETTING_27, value: "27"}
          - {name: SETTING_28, value: "28"}
          - {name: SETTING_29, value: "29"}
          - {name: SETTING_30, value: "30"}
          - {name: SETTING_31, value: "31"}
          - {name: SETTING_32, value: "32"}
          - {name: SETTING_33, value: "33"}
          - {name: SETTING_34, value: "34"}
          - {name: SETTING_35, value: "35"}
          - {name: SETTING_36, value: "36"}
          - {name: SETTING_37, value: "37"}
          - {name: SETTING_38, value: "38"}
          - {name: SETTING_39, value: "39"}
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
        annotations:
          podpreset.admission.kubernetes.io/podpreset-many-settings: "${rv:many-settings}"
      spec:
        containers:
          - name: website
            image: ecorp/website
            env:
              - {name: SETTING_00, value: "0"}
              - {name: SETTING_01, value: "1"}
              - {name: SETTING_02, value: "2"}
              - {name: SETTING_03, value: "3"}
              - {name: SETTING_04, value: "4"}
              - {name: SETTING_05, value: "5"}
              - {name: SETTING_06, value: "6"}
              - {name: SETTING_07, value: "7"}
              - {name: SETTING_08, value: "8"}
              - {name: SETTING_09, value: "9"}
              - {name: SETTING_10, value: "10"}
              - {name: SETTING_11, value: "11"}
              - {name: SETTING_12, value: "12"}
              - {name: SETTING_13, value: "13"}
              - {name: SETTING_14, value: "14"}
              - {name: SETTING_15, value: "15"}
              - {name: SETTING_16, value: "16"}
              - {name: SETTING_17, value: "17"}
              - {name: SETTING_18, value: "18"}
              - {name: SETTING_19, value: "19"}
              - {name: SETTING_20, value: "20"}
              - {name: SETTING_21, value: "21"}
              - {name: SETTING_22, value: "22"}
              - {name: SETTING_23, value: "23"}
              - {name: SETTING_24, value: "24"}
              - {name: SETTING_25, value: "25"}
              - {name: SETTING_26, value: "26"}
              - {name: SETTING_27, value: "27"}
              - {name: SETTING_28, value: "28"}
              - {name: SETTING_29, value: "29"}
              - {name: SETTING_30, value: "30"}
              - {name: SETTING_31, value: "31"}
              - {name: SETTING_32, value: "32"}
              - {name: SETTING_33, value: "33"}
              - {name: SETTING_34, value: "34"}
              - {name: SETTING_35, value: "35"}
              - {name: SETTING_36, value: "36"}
              - {name: SETTING_37, value: "37"}
              - {name: SETTING_38, value: "38"}
              - {name: SETTING_39, value: "39"}
      """

  @R6.4
  Scenario: A pod with seven containers gets a preset's items in every one of them
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: allow-database
      spec:
        selector:
          matchLabels:
            role: frontend
        env:
          - name: DB_PORT
            value: "6379"
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
      spec:
        initContainers:
          - name: migrate
            image: ecorp/migrate
          - name: seed
            image: ecorp/seed
        containers:
          - name: website
            image: ecorp/website
          - name: proxy
            image: ecorp/proxy
          - name: logger
            image: ecorp/logger
          - name: metrics
            image: ecorp/metrics
          - name: cache
            image: ecorp/cache
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: "${rv:allow-database}"
      spec:
        initContainers:
          - name: migrate
            image: ecorp/migrate
            env:
              - name: DB_PORT
                value: "6379"
          - name: seed
            image: ecorp/seed
            env:
              - name: DB_PORT
                value: "6379"
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: DB_PORT
                value: "6379"
          - name: proxy
            image: ecorp/proxy
            env:
              - name: DB_PORT
                value: "6379"
          - name: logger
            image: ecorp/logger
            env:
              - name: DB_PORT
                value: "6379"
          - name: metrics
            image: ecorp/metrics
            env:
              - name: DB_PORT
                value: "6379"
          - name: cache
            image: ecorp/cache
            env:
              - name: DB_PORT
                value: "6379"
      """
