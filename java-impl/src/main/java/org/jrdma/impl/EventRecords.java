package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The batch of 32-byte event records the native loop writes (native/src/core/event_record.h).
 * Read in place with absolute gets: no allocation per event.
 */
final class EventRecords {
    static final int RECORD_BYTES = 32;
    static final int KIND_COMPLETION = 1;
    static final int KIND_ASYNC_EVENT = 2;
    static final int KIND_WAKEUP = 3;
    static final int KIND_MESSAGE = 4;
    static final int KIND_IMMEDIATE = 5;
    static final int KIND_PROTOCOL_ERROR = 6;
    static final int KIND_CHANNEL_READY = 7;
    static final int KIND_ESTABLISHED = 8;
    static final int KIND_CHANNEL_FAILED = 9;
    static final int KIND_DISCONNECTED = 10;
    static final int KIND_INCOMING = 11;
    static final int KIND_INCOMING_REJECTED = 12;

    private final ByteBuffer records;
    private final long address;
    private final int capacity;

    EventRecords(int capacity) {
        this.capacity = capacity;
        this.records = ByteBuffer.allocateDirect(capacity * RECORD_BYTES).order(ByteOrder.nativeOrder());
        this.address = NativeContext.address0(records);
    }

    long address() {
        return address;
    }

    int capacity() {
        return capacity;
    }

    int kind(int i) {
        return records.getInt(i * RECORD_BYTES);
    }

    int a(int i) {
        return records.getInt(i * RECORD_BYTES + 4);
    }

    int b(int i) {
        return records.getInt(i * RECORD_BYTES + 8);
    }

    int c(int i) {
        return records.getInt(i * RECORD_BYTES + 12);
    }

    long d(int i) {
        return records.getLong(i * RECORD_BYTES + 16);
    }

    long e(int i) {
        return records.getLong(i * RECORD_BYTES + 24);
    }
}
