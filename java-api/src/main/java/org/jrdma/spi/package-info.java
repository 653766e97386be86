/**
 * The service interface an implementation of jrdma provides ({@link org.jrdma.spi.RdmaProvider}, found with
 * {@link java.util.ServiceLoader}); applications use {@link org.jrdma.Rdma} instead.
 */
package org.jrdma.spi;
