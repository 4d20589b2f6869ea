// Key changes announced by `npm run keys` through Redis: each key store of this process re-reads
// the keys file at once and the instance answers whether its file shows the change.
import { KEYS_TOPIC, type InstanceBus } from '../../cache/instance-registry.js';
import { parseKeyChange, type KeyStore } from '../../stores/key-store.js';

export function serveKeyChanges(bus: InstanceBus | null, keys: KeyStore): void {
  bus?.serve(
    KEYS_TOPIC,
    (message) => {
      const change = parseKeyChange(message);
      return change ? keys.applyChange(change) : false;
    },
    // A change announced while unsubscribed was missed: the poll would catch it within a second anyway.
    () => void keys.reload(),
  );
}
