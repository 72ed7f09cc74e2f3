"""A small kopf operator for the ``widgets.example.com`` CRD, run for real by test_kopf.py: it
adds its finalizer (it has a delete handler), writes status, posts Events, and on deletion
records what it saw in a ConfigMap before letting the widget go."""

import kopf
import kubernetes


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_):
    settings.posting.level = 0  # post every event, INFO included
    settings.watching.server_timeout = 30


@kopf.on.create("example.com", "v1", "widgets")
def create_widget(spec, name, namespace, patch, **_):
    kopf.info({"kind": "Widget", "apiVersion": "example.com/v1", "metadata": {"name": name, "namespace": namespace}},
              reason="Building", message=f"building widget of size {spec.get('size')}")
    patch.status["phase"] = "Ready"
    return {"size": spec.get("size")}


@kopf.on.update("example.com", "v1", "widgets", field="spec.size")
def resize_widget(old, new, patch, **_):
    patch.status["resizedFrom"] = old


@kopf.on.delete("example.com", "v1", "widgets")
def delete_widget(name, namespace, **_):
    kubernetes.config.load_kube_config()
    kubernetes.client.CoreV1Api().create_namespaced_config_map(namespace, kubernetes.client.V1ConfigMap(
        metadata=kubernetes.client.V1ObjectMeta(name=f"{name}-deleted"), data={"widget": name}))
