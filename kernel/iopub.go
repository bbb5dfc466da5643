package kernel

import (
	"time"

	"github.com/conclab/conclab/kernel/wire"
)

// IOPub is an XPUB socket (messaging protocol 5.5): the kernel learns of
// subscriptions and greets them with iopub_welcome, so a client knows its
// subscription is live without probing.
//
// zmq4 (v0.17) keeps each connection's subscriptions to itself and exposes
// only the union of subscribed topics (Topics), so the kernel polls that
// union: a topic that gains its first subscriber (in practice "", the
// whole stream, when the first client of a kernel connects, or when one
// connects again after all had left) is welcomed. A second client
// subscribing to a topic that already has a subscriber gets no welcome of
// its own; the protocol allows that ("additional welcome messages should
// be expected and ignored" — a welcome is a sufficient signal, not a
// necessary one) and jupyter_client and jupyter_server do not wait for one.

const (
	// welcomeFastPoll is the polling interval while nobody is subscribed,
	// for welcomeFastFor after the kernel starts or the last subscriber
	// left: jupyter_client's readiness check waits only 0.2 s for IOPub
	// traffic after its kernel_info reply.
	welcomeFastPoll = 2 * time.Millisecond
	welcomeFastFor  = 30 * time.Second
	// welcomeSlowPoll is the interval otherwise.
	welcomeSlowPoll = 100 * time.Millisecond
)

// watchSubscriptions welcomes new IOPub topics until the kernel stops. The
// first welcome is followed by an idle status (the kernel has nothing to
// do when its first client connects), which clients older than protocol
// 5.5 take as their sign that IOPub is live.
func (k *Kernel) watchSubscriptions() {
	t, ok := k.iopub.(interface{ Topics() []string })
	if !ok {
		return
	}
	known := map[string]bool{}
	fastUntil := time.Now().Add(welcomeFastFor)
	first := true
	for {
		topics := t.Topics()
		now := make(map[string]bool, len(topics))
		for _, topic := range topics {
			now[topic] = true
		}
		k.topics.Store(int32(len(now)))
		for _, topic := range topics {
			if !known[topic] {
				k.publishWelcome(topic)
				if first {
					k.publishStatus(nil, "idle")
					first = false
				}
			}
		}
		if len(now) == 0 && len(known) > 0 {
			fastUntil = time.Now().Add(welcomeFastFor)
		}
		known = now
		wait := welcomeSlowPoll
		if len(now) == 0 && time.Now().Before(fastUntil) {
			wait = welcomeFastPoll
		}
		select {
		case <-k.done:
			return
		case <-time.After(wait):
		}
	}
}

// publishWelcome sends iopub_welcome for a subscription to topic. It has no
// parent; its routing frame is the topic itself, so it reaches exactly the
// subscribers of that topic (none for the empty topic, which all match).
func (k *Kernel) publishWelcome(topic string) {
	m, err := wire.NewReply(nil, wire.IOPubWelcome, k.session, map[string]any{"subscription": topic})
	if err != nil {
		k.log.Printf("publish: %v", err)
		return
	}
	if topic != "" {
		m.Identities = [][]byte{[]byte(topic)}
	}
	k.pubMu.Lock()
	defer k.pubMu.Unlock()
	k.send(k.iopub, m)
}
