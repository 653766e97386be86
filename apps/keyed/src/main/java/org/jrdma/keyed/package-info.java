/**
 * Keyed transfers, as TensorFlow's verbs transport: a producer publishes values under a
 * {@link org.jrdma.keyed.TransferKey} (name and step) in a {@link org.jrdma.keyed.KeyedStore}; a consumer
 * fetches them over a {@link org.jrdma.keyed.KeyedChannel} straight into its own memory, before or after
 * they are published. Built on the public API alone; formats in the project's docs/keyed.md.
 */
package org.jrdma.keyed;
