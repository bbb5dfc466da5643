package kernel

// SubscribedTopics is how many IOPub topics had a subscriber when the
// subscription watcher last looked (for tests that reconnect).
func (k *Kernel) SubscribedTopics() int { return int(k.topics.Load()) }
