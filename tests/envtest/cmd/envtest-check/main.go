// Command envtest-check is a controller's integration test as kubebuilder scaffolds one, on
// controller-runtime's envtest: it starts the control plane envtest finds (KUBEBUILDER_ASSETS,
// TEST_ASSET_*, or USE_EXISTING_CLUSTER=true and a kubeconfig), installs a CRD from -crds, creates,
// gets, lists and watches custom resources with controller-runtime's client, runs a manager with a
// controller that reconciles them and a validating webhook that envtest installs, checks what RBAC
// lets a second user do, and stops the control plane. Each step prints one JSON line {"step": NAME, "result": ...} whose result is the same
// whichever API server answered (no uids, resourceVersions or times); {"timing": NAME, "seconds": S}
// lines say how long envtest's start and stop took. With -hold it prints {"step": "held"} after the
// start and waits to be killed (the no-orphans test).
package main

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/keyutil"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

const namespace = "envtest-check"

var widgetKind = schema.GroupVersionKind{Group: "envtest.fakeapi.dev", Version: "v1", Kind: "Widget"}

var out = json.NewEncoder(os.Stdout)

func report(step string, result any) {
	if err := out.Encode(map[string]any{"step": step, "result": result}); err != nil {
		panic(err)
	}
}

func timing(name string, since time.Time) {
	if err := out.Encode(map[string]any{"timing": name, "seconds": time.Since(since).Seconds()}); err != nil {
		panic(err)
	}
}

func fail(step string, err error) {
	report(step, map[string]any{"fatal": err.Error()})
	os.Exit(1)
}

// apiError is what a client sees of an error: the Status's code, reason, message and causes.
func apiError(err error) any {
	if err == nil {
		return nil
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return map[string]any{"error": err.Error()}
	}
	s := status.Status()
	result := map[string]any{"code": s.Code, "reason": s.Reason, "message": s.Message}
	if s.Details != nil {
		result["causes"] = s.Details.Causes
	}
	return result
}

func newWidget(name string, size any) *unstructured.Unstructured {
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(widgetKind)
	w.SetNamespace(namespace)
	w.SetName(name)
	w.Object["spec"] = map[string]any{"size": size}
	return w
}

func widgetList() *unstructured.UnstructuredList {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(widgetKind.GroupVersion().WithKind("WidgetList"))
	return list
}

// summary is what of an object every server answers alike.
func summary(o *unstructured.Unstructured) map[string]any {
	created := o.GetCreationTimestamp()
	return map[string]any{
		"apiVersion": o.GetAPIVersion(), "kind": o.GetKind(), "namespace": o.GetNamespace(), "name": o.GetName(),
		"generation": o.GetGeneration(), "spec": o.Object["spec"], "status": o.Object["status"],
		"hasUID": o.GetUID() != "", "hasResourceVersion": o.GetResourceVersion() != "",
		"hasCreationTimestamp": !created.IsZero(),
	}
}

// widgetReconciler keeps a ConfigMap <name>-size owned by each widget and its status.observedSize.
type widgetReconciler struct{ client client.Client }

func (r widgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	widget := newWidget(req.Name, nil)
	if err := r.client.Get(ctx, req.NamespacedName, widget); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	size, _, _ := unstructured.NestedInt64(widget.Object, "spec", "size")
	configMap := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: req.Name + "-size"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.client, configMap, func() error {
		configMap.Data = map[string]string{"size": fmt.Sprint(size)}
		return controllerutil.SetControllerReference(widget, configMap, r.client.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	if observed, found, _ := unstructured.NestedInt64(widget.Object, "status", "observedSize"); found && observed == size {
		return ctrl.Result{}, nil
	}
	if err := unstructured.SetNestedField(widget.Object, size, "status", "observedSize"); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.client.Status().Update(ctx, widget)
}

// reconciled waits until every widget's status.observedSize is its spec.size and its ConfigMap says
// so, and reports each widget's generation, observed size and ConfigMap.
func reconciled(ctx context.Context, c client.Client, step string) {
	var result map[string]any
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		widgets := widgetList()
		if err := c.List(ctx, widgets, client.InNamespace(namespace)); err != nil {
			return false, err
		}
		result = map[string]any{}
		for i := range widgets.Items {
			w := &widgets.Items[i]
			size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size")
			observed, _, _ := unstructured.NestedInt64(w.Object, "status", "observedSize")
			configMap := &corev1.ConfigMap{}
			if err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: w.GetName() + "-size"}, configMap); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			owners := []string{}
			for _, ref := range configMap.OwnerReferences {
				owners = append(owners, fmt.Sprintf("%s/%s controller=%v", ref.Kind, ref.Name, *ref.Controller))
			}
			if observed != size || configMap.Data["size"] != fmt.Sprint(size) {
				return false, nil
			}
			result[w.GetName()] = map[string]any{"generation": w.GetGeneration(), "observedSize": observed,
				"configMap": configMap.Data, "owners": owners}
		}
		return true, nil
	})
	if err != nil {
		fail(step, err)
	}
	report(step, result)
}

// sizeValidator is a validating admission webhook of widgets: seven is not a size.
type sizeValidator struct{}

func (sizeValidator) Handle(_ context.Context, req admission.Request) admission.Response {
	widget := &unstructured.Unstructured{}
	if err := widget.UnmarshalJSON(req.Object.Raw); err != nil {
		return admission.Errored(400, err)
	}
	if size, _, _ := unstructured.NestedInt64(widget.Object, "spec", "size"); size == 7 {
		return admission.Denied("seven is not a size")
	}
	return admission.Allowed("")
}

// validatingWebhook is the configuration envtest installs (WebhookInstallOptions: its service path
// becomes a URL of envtest's webhook server, its caBundle envtest's): widgets labelled validate=true.
func validatingWebhook() *admissionregistrationv1.ValidatingWebhookConfiguration {
	path := "/validate-widgets"
	fail, none := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "widget-validation"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "widgets.envtest.fakeapi.dev",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Path: &path}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{widgetKind.Group}, APIVersions: []string{"v1"},
					Resources: []string{"widgets"}},
			}},
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"validate": "true"}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

func main() {
	crds := flag.String("crds", "", "the directory of CRDs envtest installs")
	hold := flag.Bool("hold", false, "after the start, print {\"step\": \"held\"} and wait to be killed")
	flag.Parse()
	existing := os.Getenv("USE_EXISTING_CLUSTER") == "true"
	ctx := context.Background()

	env := &envtest.Environment{
		CRDInstallOptions:     envtest.CRDInstallOptions{Paths: []string{*crds}, ErrorIfPathMissing: true},
		WebhookInstallOptions: envtest.WebhookInstallOptions{ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{validatingWebhook()}},
	}
	started := time.Now()
	cfg, err := env.Start()
	if err != nil {
		fail("start", err)
	}
	timing("start", started)
	report("start", map[string]any{"crds": len(env.CRDs)})
	if *hold {
		report("held", nil)
		select {}
	}

	c, err := client.NewWithWatch(cfg, client.Options{})
	if err != nil {
		fail("client", err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	report("namespace", apiError(c.Create(ctx, ns)))

	w1 := newWidget("w1", 1)
	if err := c.Create(ctx, w1); err != nil {
		fail("create", err)
	}
	report("create", summary(w1))
	got := newWidget("w1", nil)
	report("get", apiError(c.Get(ctx, client.ObjectKeyFromObject(w1), got)))
	report("got", summary(got))
	report("create-duplicate", apiError(c.Create(ctx, newWidget("w1", 1))))
	report("create-invalid", apiError(c.Create(ctx, newWidget("big", 11))))
	report("create-wrong-type", apiError(c.Create(ctx, newWidget("typed", "one"))))

	widgets := widgetList()
	if err := c.List(ctx, widgets, client.InNamespace(namespace)); err != nil {
		fail("list", err)
	}
	names := []string{}
	for _, w := range widgets.Items {
		names = append(names, w.GetName())
	}
	report("list", names)
	watcher, err := c.Watch(ctx, widgetList(), client.InNamespace(namespace),
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: widgets.GetResourceVersion()}})
	if err != nil {
		fail("watch", err)
	}
	if err := c.Create(ctx, newWidget("w2", 2)); err != nil {
		fail("watch", err)
	}
	select {
	case event := <-watcher.ResultChan():
		report("watch", map[string]any{"type": event.Type, "object": summary(event.Object.(*unstructured.Unstructured))})
	case <-time.After(10 * time.Second):
		fail("watch", errors.New("no event within 10s"))
	}
	watcher.Stop()

	hooks := env.WebhookInstallOptions
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0", WebhookServer: webhook.NewServer(webhook.Options{
			Host: hooks.LocalServingHost, Port: hooks.LocalServingPort, CertDir: hooks.LocalServingCertDir})})
	if err != nil {
		fail("manager", err)
	}
	mgr.GetWebhookServer().Register("/validate-widgets", &webhook.Admission{Handler: sizeValidator{}})
	if err := ctrl.NewControllerManagedBy(mgr).For(newWidget("", nil)).Owns(&corev1.ConfigMap{}).
		Complete(widgetReconciler{client: mgr.GetClient()}); err != nil {
		fail("controller", err)
	}
	managerCtx, stopManager := context.WithCancel(ctx)
	managerDone := make(chan error)
	go func() { managerDone <- mgr.Start(managerCtx) }()
	reconciled(ctx, c, "reconciled")
	patch := []byte(`{"spec":{"size":3}}`)
	report("patch", apiError(c.Patch(ctx, newWidget("w1", nil), client.RawPatch(types.MergePatchType, patch))))
	reconciled(ctx, c, "reconciled-after-patch")
	validated := func(name string, size int) error {
		w := newWidget(name, size)
		w.SetLabels(map[string]string{"validate": "true"})
		return c.Create(ctx, w)
	}
	// The webhook server may still be starting: the first answer that is not a failed call counts.
	var denied error
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		denied = validated("w7", 7)
		return !apierrors.IsInternalError(denied), nil
	}); err != nil {
		fail("webhook-denied", fmt.Errorf("%w: %w", err, denied))
	}
	report("webhook-denied", apiError(denied))
	report("webhook-allowed", apiError(validated("w4", 4)))
	reconciled(ctx, c, "reconciled-validated")
	stopManager()
	report("manager-stopped", apiError(<-managerDone))

	if !existing {
		checkRBAC(ctx, env, c)
		checkServiceAccountToken(ctx, env, c)
		checkExtensionAuthentication(ctx, env, c)
	}

	report("namespace-delete", apiError(c.Delete(ctx, ns)))
	time.Sleep(time.Second)
	report("namespace-after-delete", map[string]any{"get": apiError(c.Get(ctx, client.ObjectKeyFromObject(ns), ns)),
		"phase": ns.Status.Phase})

	if existing {
		stopped := time.Now()
		report("stop", apiError(env.Stop()))
		timing("stop", stopped)
		return
	}
	dirs := []string{env.ControlPlane.APIServer.CertDir, env.ControlPlane.Etcd.DataDir}
	stopped := time.Now()
	report("stop", apiError(env.Stop()))
	timing("stop", stopped)
	left := []string{}
	for _, dir := range dirs {
		if _, err := os.Stat(dir); err == nil {
			left = append(left, dir)
		}
	}
	report("dirs-left", len(left))
}

// checkRBAC: a user of envtest's (a client certificate, CN alice, O envtest-viewers) is refused
// widgets until a RoleBinding grants its group a ClusterRole that reads them.
func checkRBAC(ctx context.Context, env *envtest.Environment, admin client.Client) {
	user, err := env.AddUser(envtest.User{Name: "alice", Groups: []string{"envtest-viewers"}}, &rest.Config{})
	if err != nil {
		fail("add-user", err)
	}
	alice, err := client.New(user.Config(), client.Options{})
	if err != nil {
		fail("add-user", err)
	}
	report("forbidden", apiError(alice.List(ctx, widgetList(), client.InNamespace(namespace))))
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "widget-reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{widgetKind.Group}, Resources: []string{"widgets"},
			Verbs: []string{"get", "list", "watch"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "viewers-read-widgets"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "envtest-viewers"}}}
	report("grant", []any{apiError(admin.Create(ctx, role)), apiError(admin.Create(ctx, binding))})
	var names []string
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		widgets := widgetList()
		if err := alice.List(ctx, widgets, client.InNamespace(namespace)); err != nil {
			return false, nil
		}
		names = nil
		for _, w := range widgets.Items {
			names = append(names, w.GetName())
		}
		return true, nil
	})
	if err != nil {
		fail("granted", err)
	}
	report("granted", names)
	report("granted-other-namespace", apiError(alice.List(ctx, widgetList(), client.InNamespace("default"))))
}

// checkServiceAccountToken: a TokenRequest's token is signed with the key envtest generated and
// gave the API server (--service-account-signing-key-file): its kid is the one kube derives from
// the public key of envtest's certificate (--service-account-key-file), its signature verifies
// with that key, and its issuer is envtest's --service-account-issuer.
func checkServiceAccountToken(ctx context.Context, env *envtest.Environment, admin client.Client) {
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "robot"}}
	if err := admin.Create(ctx, account); err != nil {
		fail("service-account-token", err)
	}
	request := &authenticationv1.TokenRequest{}
	if err := admin.SubResource("token").Create(ctx, account, request); err != nil {
		fail("service-account-token", err)
	}
	keys, err := keyutil.PublicKeysFromFile(filepath.Join(env.ControlPlane.APIServer.CertDir, "sa-signer.crt"))
	if err != nil || len(keys) != 1 {
		fail("service-account-token", fmt.Errorf("envtest's key: %v", err))
	}
	parts := strings.Split(request.Status.Token, ".")
	if len(parts) != 3 {
		fail("service-account-token", errors.New("not a JWS"))
	}
	var header struct{ Alg, Kid string }
	var claims struct{ Iss string }
	if err := decodeSegment(parts[0], &header); err != nil {
		fail("service-account-token", err)
	}
	if err := decodeSegment(parts[1], &claims); err != nil {
		fail("service-account-token", err)
	}
	der, err := x509.MarshalPKIXPublicKey(keys[0])
	if err != nil {
		fail("service-account-token", err)
	}
	keyID := sha256.Sum256(der)
	signature, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		fail("service-account-token", err)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	verified := false
	switch key := keys[0].(type) {
	case *ecdsa.PublicKey:
		half := len(signature) / 2
		verified = header.Alg == "ES256" && ecdsa.Verify(key, digest[:], new(big.Int).SetBytes(signature[:half]),
			new(big.Int).SetBytes(signature[half:]))
	case *rsa.PublicKey:
		verified = header.Alg == "RS256" && rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], signature) == nil
	}
	issuer := env.ControlPlane.APIServer.SecureServing.URL("https", "/").String()
	report("service-account-token", map[string]any{"alg": header.Alg,
		"kid-is-envtests-key": header.Kid == base64.RawURLEncoding.EncodeToString(keyID[:]),
		"verified":            verified, "issuer-is-envtests": claims.Iss == issuer})
}

// checkExtensionAuthentication: kube-system/extension-apiserver-authentication, which aggregated
// API servers read to authenticate the API server's clients, names envtest's client CA alone: no
// front proxy (envtest gives no --requestheader-* flags) and no other CA.
func checkExtensionAuthentication(ctx context.Context, env *envtest.Environment, admin client.Client) {
	configMap := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: "kube-system", Name: "extension-apiserver-authentication"}
	if err := admin.Get(ctx, key, configMap); err != nil {
		fail("extension-apiserver-authentication", err)
	}
	ca, err := os.ReadFile(filepath.Join(env.ControlPlane.APIServer.CertDir, "client-cert-auth-ca.crt"))
	if err != nil {
		fail("extension-apiserver-authentication", err)
	}
	keys := []string{}
	for name := range configMap.Data {
		keys = append(keys, name)
	}
	sort.Strings(keys)
	report("extension-apiserver-authentication", map[string]any{"keys": keys,
		"client-ca-is-envtests": configMap.Data["client-ca-file"] == string(ca)})
}

func decodeSegment(segment string, into any) error {
	data, err := base64.RawURLEncoding.DecodeString(segment)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, into)
}
