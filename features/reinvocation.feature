@R3.8
Feature: Reinvocation
  In order to run presets beside the other mutating webhooks of my cluster
  As a platform engineer
  I want a pod admitted again, after another webhook changed it, to get nothing twice

  Scenario: A pod another webhook annotates after the presets is admitted again, and changes no more
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
        envFrom:
          - configMapRef:
              name: database
        volumeMounts:
          - mountPath: /cache
            name: cache-volume
        volumes:
          - name: cache-volume
            emptyDir: {}
      """
    And another admission webhook annotates every pod with "example.com/audited=true"
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
          example.com/audited: "true"
          podpreset.admission.kubernetes.io/podpreset-allow-database: "${rv:allow-database}"
      spec:
        containers:
          - name: website
            image: ecorp/website
            env:
              - name: DB_PORT
                value: "6379"
            envFrom:
              - configMapRef:
                  name: database
            volumeMounts:
              - mountPath: /cache
                name: cache-volume
        volumes:
          - name: cache-volume
            emptyDir: {}
      """
