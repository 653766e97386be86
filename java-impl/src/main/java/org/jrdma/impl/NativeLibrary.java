package org.jrdma.impl;

/**
 * The JNI surface of the library-wide functions. Only {@code static native} methods taking and
 * returning primitives or strings; registered by JNI_OnLoad (RegisterNatives), so a missing method
 * fails the load instead of a later call.
 */
final class NativeLibrary {
    private NativeLibrary() {
    }

    /** The version compiled into libjrdma.so. */
    static native String version0();

    /** The layouts of the records that cross JNI, as native/src/protocol/layout.h writes them. */
    static native String layout0();

    /** The device snapshot in the text form of native/src/transports/verbs/device_info_format.h. */
    static native String devices0();
}
