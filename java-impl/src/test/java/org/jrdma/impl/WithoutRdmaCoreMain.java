package org.jrdma.impl;

import org.jrdma.ConfigurationException;
import org.jrdma.Rdma;

/**
 * Run by {@link WithoutRdmaCoreTest} in a JVM that cannot see libibverbs and librdmacm: prints whether
 * the library loaded and what listing devices and opening a context say.
 */
public final class WithoutRdmaCoreMain {
    private WithoutRdmaCoreMain() {
    }

    public static void main(String[] args) {
        System.out.println("available=" + Rdma.isAvailable() + " cause=" + Rdma.unavailabilityCause());
        System.out.println("version=" + Rdma.libraryVersion());
        try {
            System.out.println("devices=" + Rdma.devices());
        } catch (ConfigurationException e) {
            System.out.println("devices failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        try {
            Rdma.open().close();
            System.out.println("open worked");
        } catch (ConfigurationException e) {
            System.out.println("open failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
