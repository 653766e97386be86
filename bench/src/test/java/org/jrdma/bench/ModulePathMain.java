package org.jrdma.bench;

import org.jrdma.Rdma;

/** Run by {@link ModulePathTest} from the class path, with jrdma's jars on the module path. */
public final class ModulePathMain {
    private ModulePathMain() {
    }

    public static void main(String[] args) {
        System.out.println("api module: " + Rdma.class.getModule().getName());
        System.out.println("available: " + Rdma.isAvailable() + " cause: " + Rdma.unavailabilityCause());
        System.out.println("version: " + Rdma.libraryVersion());
    }
}
