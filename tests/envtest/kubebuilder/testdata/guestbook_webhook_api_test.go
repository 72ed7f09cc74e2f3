// Specs added to the kubebuilder scaffold's webhook suite: Guestbooks written through the API
// server envtest started, which calls the manager's webhooks as a cluster would. Each prints
// what a client saw ("outcome: {...}") so the same specs on two servers can be compared.

package v1

import (
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "example.com/guestbook/api/v1"
)

// warnings records the warnings the API server sent with each answer.
type warnings struct{ texts []string }

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) { w.texts = append(w.texts, text) }

func outcome(name string, err error, extra any) {
	seen := map[string]any{"spec": name, "extra": extra}
	if status, ok := err.(apierrors.APIStatus); ok {
		seen["code"], seen["reason"], seen["message"] = status.Status().Code, status.Status().Reason, status.Status().Message
	} else if err != nil {
		seen["error"] = err.Error()
	}
	line, _ := json.Marshal(seen)
	fmt.Fprintf(GinkgoWriter, "outcome: %s\n", line)
	GinkgoWriter.Println()
}

var _ = Describe("Guestbook webhooks through the API server", func() {
	var (
		seen   *warnings
		writer client.Client
	)

	BeforeEach(func() {
		seen = &warnings{}
		config := rest.CopyConfig(cfg)
		config.WarningHandler = seen
		var err error
		writer, err = client.New(config, client.Options{Scheme: k8sClient.Scheme()})
		Expect(err).NotTo(HaveOccurred())
	})

	It("defaults spec.foo on create", func() {
		book := &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Name: "defaulted", Namespace: "default"}}
		Expect(writer.Create(ctx, book)).To(Succeed())
		stored := &webappv1.Guestbook{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(book), stored)).To(Succeed())
		Expect(stored.Spec.Foo).NotTo(BeNil())
		Expect(*stored.Spec.Foo).To(Equal(DefaultFoo))
		outcome("defaulted", nil, *stored.Spec.Foo)
	})

	It("refuses a forbidden spec.foo on create with the webhook's status", func() {
		foo := ForbiddenFoo
		book := &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Name: "refused", Namespace: "default"},
			Spec: webappv1.GuestbookSpec{Foo: &foo}}
		err := writer.Create(ctx, book)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(Equal(`admission webhook "vguestbook-v1.kb.io" denied the request: ` +
			`Guestbook.webapp.fakeapi.dev "refused" is invalid: spec.foo: Invalid value: "forbidden": must not be forbidden`))
		outcome("refused-create", err, nil)
		Expect(apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(book), &webappv1.Guestbook{}))).To(BeTrue())
	})

	It("warns on an update that changes spec.foo and refuses one to forbidden", func() {
		foo := "first"
		book := &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Name: "updated", Namespace: "default"},
			Spec: webappv1.GuestbookSpec{Foo: &foo}}
		Expect(writer.Create(ctx, book)).To(Succeed())
		second := "second"
		book.Spec.Foo = &second
		Expect(writer.Update(ctx, book)).To(Succeed())
		Expect(seen.texts).To(Equal([]string{"spec.foo changed from first to second"}))
		outcome("warned-update", nil, seen.texts)

		forbidden := ForbiddenFoo
		book.Spec.Foo = &forbidden
		err := writer.Update(ctx, book)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		outcome("refused-update", err, nil)
	})
})
