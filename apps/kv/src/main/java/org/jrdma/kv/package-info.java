/**
 * Push/pull key-value, as ps-lite's KVWorker and KVServer: {@link org.jrdma.kv.KvServer}s each own a
 * range of the key space and fold pushed values in with a {@link org.jrdma.kv.MergeFunction};
 * {@link org.jrdma.kv.KvWorker}s push, pull, wait for timestamps and meet in barriers. Large values go
 * zero-copy into write slots. Built on the public API alone; formats in the project's docs/kv.md.
 */
package org.jrdma.kv;
