/**
 * The implementation of jrdma's API over the native core (libjrdma.so, loaded from the jrdma-native
 * jar): found by {@link org.jrdma.Rdma} through {@link java.util.ServiceLoader}. Nothing here is API;
 * applications use the org.jrdma packages. The design is in the project's docs/architecture.md.
 */
package org.jrdma.impl;
