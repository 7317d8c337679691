@R3.3 @R3.6 @R3.7
Feature: Multiple PodPresets
  In order to compose settings from several services
  As a platform engineer
  I want every matching PodPreset applied to a pod, in order of their names

  Scenario: Two presets are both applied, in name order
    Given the objects:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: proxy
      spec:
        selector:
          matchLabels:
            role: frontend
        volumeMounts:
          - mountPath: /etc/proxy/configs
            name: proxy-volume
        volumes:
          - name: proxy-volume
            emptyDir: {}
      ---
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
        volumeMounts:
          - mountPath: /cache
            name: cache-volume
        volumes:
          - name: cache-volume
            emptyDir: {}
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          app: website
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
            ports:
              - containerPort: 80
      """
    Then the pod "website" should be:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          app: website
          role: frontend
        annotations:
          podpreset.admission.kubernetes.io/podpreset-allow-database: "${rv:allow-database}"
          podpreset.admission.kubernetes.io/podpreset-proxy: "${rv:proxy}"
      spec:
        containers:
          - name: website
            image: ecorp/website
            ports:
              - containerPort: 80
            env:
              - name: DB_PORT
                value: "6379"
            volumeMounts:
              - mountPath: /cache
                name: cache-volume
              - mountPath: /etc/proxy/configs
                name: proxy-volume
        volumes:
          - name: cache-volume
            emptyDir: {}
          - name: proxy-volume
            emptyDir: {}
      """
