package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
