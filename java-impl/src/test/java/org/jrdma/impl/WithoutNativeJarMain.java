package org.jrdma.impl;

import org.jrdma.Rdma;

/** Run by {@link WithoutNativeJarTest} in a JVM whose class path lacks jrdma-native: prints what the user reads. */
public final class WithoutNativeJarMain {
    private WithoutNativeJarMain() {
    }

    public static void main(String[] args) {
        System.out.println("available=" + Rdma.isAvailable());
        Throwable cause = Rdma.unavailabilityCause();
        System.out.println("cause=" + (cause == null ? null : cause.getMessage()));
    }
}
