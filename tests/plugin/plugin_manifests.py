"""Manifests shared by the plugin's tests and by the test files they write for pytester."""

WIDGET_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""

WIDGET = """\
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1}
spec: {size: 3}
"""

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, labels: {app: demo}}
data: {mode: fast}
"""
