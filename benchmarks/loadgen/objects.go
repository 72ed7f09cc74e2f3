package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Label keys the workloads select on. shardLabel spreads pods over shardCount values, so a
// selector on one value matches 1/shardCount of them.
const (
	shardLabel = "bench.fakeapi.dev/shard"
	shardCount = 10
	// Annotations the writers set: a counter (every write changes the object), and for the
	// fan-out the write's sequence number and the wall-clock time it was sent at (Unix ns).
	counterAnnotation = "bench.fakeapi.dev/counter"
	seqAnnotation     = "bench.fakeapi.dev/seq"
	sentAnnotation    = "bench.fakeapi.dev/sent-unix-nano"
)

// podName is the name of the i-th benchmark pod: a ReplicaSet's pod names, in index order.
func podName(i int) string { return fmt.Sprintf("web-5d4f8c7b9-%06d", i) }

// realisticPod is a pod as a ReplicaSet creates it, ~3.6 KB of JSON: labels and annotations, an
// owner reference, an init container and two containers with env, ports, resources, probes and
// mounts, a projected service-account volume, affinity and tolerations. It is what defaulting,
// validation, field tracking and serialization walk through on a real cluster.
func realisticPod(i int) *corev1.Pod {
	labels := map[string]string{
		"app.kubernetes.io/name": "web", "app.kubernetes.io/instance": "web-prod",
		"app.kubernetes.io/component": "frontend", "pod-template-hash": "5d4f8c7b9",
		shardLabel: fmt.Sprint(i % shardCount),
	}
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("http")}},
			InitialDelaySeconds: 5, PeriodSeconds: 10,
		}
	}
	env := []corev1.EnvVar{
		{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
		{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "web-db"}, Key: "password"}}},
	}
	for j := range 10 {
		env = append(env, corev1.EnvVar{Name: fmt.Sprintf("FEATURE_%d", j), Value: "enabled"})
	}
	quantities := func(cpu, memory string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "web"}}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:   podName(i),
			Labels: labels,
			Annotations: map[string]string{
				"prometheus.io/scrape": "true", "prometheus.io/port": "9090",
				"checksum/config":                   "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
				"kubectl.kubernetes.io/restartedAt": "2024-05-01T10:00:00Z",
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d4f8c7b9",
				UID: "6a0e8f4e-2b1c-4d5e-9f3a-1b2c3d4e5f60", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: corev1.PodSpec{
			ServiceAccountName:            "web",
			TerminationGracePeriodSeconds: ptr.To[int64](60),
			ImagePullSecrets:              []corev1.LocalObjectReference{{Name: "registry-credentials"}},
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](10001), FSGroup: ptr.To[int64](10001),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			InitContainers: []corev1.Container{{
				Name: "migrate", Image: "registry.example/web:1.2.3", Command: []string{"/app/migrate"},
				EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-db"}}}},
			}},
			Containers: []corev1.Container{
				{
					Name: "web", Image: "registry.example/web:1.2.3", Args: []string{"--port=8080", "--log-level=info"},
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "metrics", ContainerPort: 9090}},
					Env:   env,
					Resources: corev1.ResourceRequirements{
						Requests: quantities("250m", "256Mi"), Limits: quantities("1", "512Mi"),
					},
					LivenessProbe: probe("/healthz"), ReadinessProbe: probe("/ready"),
					VolumeMounts: []corev1.VolumeMount{
						{Name: "config", MountPath: "/etc/web"}, {Name: "tmp", MountPath: "/tmp"},
						{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true},
					},
					SecurityContext: &corev1.SecurityContext{
						AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
						Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
					},
				},
				{
					Name: "proxy", Image: "registry.example/envoy:1.30", Args: []string{"--config-path", "/etc/envoy/envoy.yaml"},
					Ports:     []corev1.ContainerPort{{ContainerPort: 15001}},
					Resources: corev1.ResourceRequirements{Requests: quantities("50m", "64Mi")},
				},
			},
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}},
				{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
					Sources: []corev1.VolumeProjection{
						{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptr.To[int64](3607), Path: "token"}},
						{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
							Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
						{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{
							Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
					},
				}}},
			},
			Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
					Weight:          100,
					PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname", LabelSelector: selector},
				}},
			}},
			TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone",
				WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: selector,
			}},
			NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
			Tolerations: []corev1.Toleration{{
				Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "web", Effect: corev1.TaintEffectNoSchedule,
			}},
		},
	}
}

// variedPod is realisticPod(i) as a program whose pods differ per pod sends it: every env value of
// both containers carries the pod's index, an annotation a build number, and the owner (one
// ReplicaSet per 100 pods) and its template hash change along the run. No two pods' specs are
// alike, so a server cannot answer their defaulting, validation or field tracking from what it
// kept of an earlier pod's content.
func variedPod(i int) *corev1.Pod {
	pod := realisticPod(i)
	replicaSet := fmt.Sprintf("%09x", 0x5d4f8c7b9+i/100)
	pod.Name = fmt.Sprintf("web-%s-%06d", replicaSet, i)
	pod.Labels["pod-template-hash"] = replicaSet
	pod.Annotations["ci.example/build"] = fmt.Sprint(100000 + i)
	pod.Annotations["checksum/config"] = fmt.Sprintf("%064x", uint64(i)*0x9e3779b97f4a7c15)
	pod.OwnerReferences[0].Name = "web-" + replicaSet
	pod.OwnerReferences[0].UID = types.UID(fmt.Sprintf("6a0e8f4e-2b1c-4d5e-9f3a-%012x", i/100))
	web := &pod.Spec.Containers[0]
	for j := range web.Env {
		if web.Env[j].ValueFrom == nil {
			web.Env[j].Value = fmt.Sprintf("enabled-%d-%d", i, j)
		}
	}
	web.Env = append(web.Env, corev1.EnvVar{Name: "POD_INDEX", Value: fmt.Sprint(i)})
	pod.Spec.Containers[1].Env = []corev1.EnvVar{
		{Name: "ENVOY_NODE_ID", Value: fmt.Sprintf("web-%06d", i)},
		{Name: "ENVOY_CLUSTER", Value: fmt.Sprintf("web-shard-%d", i%shardCount)},
	}
	return pod
}

// variedConfigMap is the i-th of ConfigMaps whose data all differ: 1-4 KiB (by the index) of
// settings in four keys, each value derived from the index, and a label, as an application's
// per-instance configuration.
func variedConfigMap(i int) *corev1.ConfigMap {
	size := 1024 + (i*797)%3072
	random := rand.New(rand.NewPCG(uint64(i), 0x5eed))
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	data := map[string]string{}
	keys := []string{"application.properties", "logging.yaml", "features.json", "endpoints.txt"}
	for _, key := range keys {
		value := make([]byte, size/len(keys))
		for k := range value {
			if k%64 == 63 {
				value[k] = '\n'
			} else {
				value[k] = alphabet[random.IntN(len(alphabet))]
			}
		}
		data[key] = string(value)
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:   fmt.Sprintf("settings-%06d", i),
			Labels: map[string]string{"app.kubernetes.io/name": "web", shardLabel: fmt.Sprint(i % shardCount)},
		},
		Data: data,
	}
}

// nodeLease is the heartbeat Lease a kubelet keeps in kube-node-lease for its node.
func nodeLease(node string, now time.Time) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: node},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(node),
			LeaseDurationSeconds: ptr.To[int32](40),
			RenewTime:            &metav1.MicroTime{Time: now},
		},
	}
}

// fanoutConfigMap is one of the objects the fan-out's writer changes: ~0.6 KB of JSON with its
// managedFields, small because the load generator decodes every event for every watcher (client-go
// spends ~50 µs of CPU on a 1 KB JSON event) on the cores the server needs.
func fanoutConfigMap(i int) *corev1.ConfigMap {
	data := map[string]string{}
	for j := range 4 {
		data[fmt.Sprintf("setting-%d", j)] = fmt.Sprintf("%032d", j)
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("fanout-%04d", i), Labels: map[string]string{"app": "fanout"}},
		Data:       data,
	}
}

// variedRevision is the i-th of a StatefulSet's ControllerRevisions as its controller writes them
// (one per template change, seed 000's revisions): the template patch in data, its image and env
// carrying the index, the revision number, the hash label, and the StatefulSet as owner (one
// StatefulSet per 10 revisions).
func variedRevision(i int) *appsv1.ControllerRevision {
	set := fmt.Sprintf("db-%04d", i/10)
	hash := fmt.Sprintf("%010x", uint64(i)*0x9e3779b97f4a7c15>>24)
	template := map[string]any{"spec": map[string]any{"template": map[string]any{
		"$patch":   "replace",
		"metadata": map[string]any{"labels": map[string]string{"app.kubernetes.io/name": "db", "app.kubernetes.io/instance": set}},
		"spec": map[string]any{
			"containers": []map[string]any{{
				"name": "postgres", "image": fmt.Sprintf("registry.example/postgres:16.%d", i),
				"env": []map[string]string{
					{"name": "PGDATA", "value": "/var/lib/postgresql/data/pgdata"},
					{"name": "REVISION", "value": fmt.Sprint(i)},
					{"name": "CONFIG_CHECKSUM", "value": fmt.Sprintf("%016x", uint64(i)*0x2545f4914f6cdd1d)},
				},
				"ports":     []map[string]any{{"containerPort": 5432, "name": "postgres", "protocol": "TCP"}},
				"resources": map[string]any{"requests": map[string]string{"cpu": fmt.Sprintf("%dm", 250+i%500), "memory": "1Gi"}},
				"volumeMounts": []map[string]string{{"mountPath": "/var/lib/postgresql/data", "name": "data"}},
				"terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
				"imagePullPolicy": "IfNotPresent",
			}},
			"dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "schedulerName": "default-scheduler",
			"securityContext": map[string]any{}, "terminationGracePeriodSeconds": 30,
		},
	}}}
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: set + "-" + hash,
			Labels: map[string]string{"app.kubernetes.io/name": "db", "app.kubernetes.io/instance": set,
				"controller.kubernetes.io/hash": hash},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "StatefulSet", Name: set, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
				UID: types.UID(fmt.Sprintf("0b7c2d9e-5f1a-4c3b-8e6d-%012x", i/10)),
			}},
		},
		Data:     runtime.RawExtension{Raw: mustJSON(template)},
		Revision: int64(i%10 + 1),
	}
}

// Custom resources: benchResourceGroup's BenchApp, an operator's application resource (a
// structural schema with defaults, a map list, an embedded quantity map, and two CEL rules), whose
// spec differs per object.
const (
	benchResourceGroup  = "bench.fakeapi.dev"
	benchResourcePlural = "benchapps"
)

// benchAppDefinition is the CustomResourceDefinition of the BenchApps.
func benchAppDefinition() *unstructured.Unstructured {
	str := map[string]any{"type": "string"}
	bounded := map[string]any{"type": "string", "maxLength": 256}
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"spec": map[string]any{
				"type": "object", "required": []any{"image", "replicas"},
				"x-kubernetes-validations": []any{
					map[string]any{"rule": "self.replicas <= self.maxReplicas", "message": "replicas must not exceed maxReplicas"},
					map[string]any{"rule": "!has(self.env) || self.env.all(e, e.name.size() <= 64)"},
				},
				"properties": map[string]any{
					"image":       str,
					"replicas":    map[string]any{"type": "integer", "minimum": 0},
					"maxReplicas": map[string]any{"type": "integer", "default": 100},
					"paused":      map[string]any{"type": "boolean", "default": false},
					"env": map[string]any{
						"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
						"maxItems": 32,
						"items": map[string]any{"type": "object", "required": []any{"name"},
							"properties": map[string]any{"name": bounded, "value": bounded}},
					},
					"resources": map[string]any{"type": "object", "additionalProperties": map[string]any{
						"anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}},
						"x-kubernetes-int-or-string": true, "pattern": `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`,
					}},
					"selector": map[string]any{"type": "object", "additionalProperties": str},
					"ingress": map[string]any{"type": "object", "properties": map[string]any{
						"host": str, "path": map[string]any{"type": "string", "default": "/"},
						"tls": map[string]any{"type": "boolean"},
					}},
				},
			},
			"status": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
		},
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": benchResourcePlural + "." + benchResourceGroup},
		"spec": map[string]any{
			"group": benchResourceGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": benchResourcePlural, "singular": "benchapp", "kind": "BenchApp", "listKind": "BenchAppList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema":       map[string]any{"openAPIV3Schema": schema},
				"subresources": map[string]any{"status": map[string]any{}},
			}},
		},
	}}
}

// variedBenchApp is the i-th BenchApp: its image, env, resources, selector and host carry the index.
func variedBenchApp(i int) *unstructured.Unstructured {
	name := fmt.Sprintf("app-%06d", i)
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": benchResourceGroup + "/v1", "kind": "BenchApp",
		"metadata": map[string]any{
			"name":        name,
			"labels":      map[string]any{"app.kubernetes.io/name": name, shardLabel: fmt.Sprint(i % shardCount)},
			"annotations": map[string]any{"ci.example/build": fmt.Sprint(100000 + i)},
		},
		"spec": map[string]any{
			"image":    fmt.Sprintf("registry.example/app:2.%d.%d", i/100, i%100),
			"replicas": int64(1 + i%5),
			"env": []any{
				map[string]any{"name": "APP_INDEX", "value": fmt.Sprint(i)},
				map[string]any{"name": "APP_SHARD", "value": fmt.Sprintf("shard-%d", i%shardCount)},
				map[string]any{"name": "APP_SECRET_REF", "value": fmt.Sprintf("secret-%06d", i)},
			},
			"resources": map[string]any{"cpu": fmt.Sprintf("%dm", 100+i%900), "memory": fmt.Sprintf("%dMi", 128+i%896)},
			"selector":  map[string]any{"app.kubernetes.io/name": name},
			"ingress":   map[string]any{"host": name + ".apps.example", "tls": i%2 == 0},
		},
	}}
}
