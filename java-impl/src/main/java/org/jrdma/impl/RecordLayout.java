package org.jrdma.impl;

import java.util.Locale;

/**
 * Where the fields of a fixed-layout record that crosses JNI lie, as C++ lays out the struct: each
 * field aligned to its size, the whole padded to a multiple of the largest. The record's fields are
 * the constants of an enum, in native order; its layout line ({@code "name size=N,field=offset,..."},
 * a field named as its native member: {@code MAX_MESSAGE} is {@code max_message}) is compared with the
 * native library's at load ({@link Layouts}), so a field added on one side only, or two swapped,
 * makes the library unavailable instead of configuring the wrong thing.
 */
final class RecordLayout {
    private final String name;
    private final Enum<?>[] fields;
    private final int[] offsets;
    private final int bytes;

    /** {@code sizes[i]}: the size in bytes of {@code fields[i]} (4 or 8). */
    RecordLayout(String name, Enum<?>[] fields, int[] sizes) {
        this.name = name;
        this.fields = fields.clone();
        this.offsets = new int[fields.length];
        int end = 0;
        int alignment = 1;
        for (int i = 0; i < fields.length; i++) {
            offsets[i] = align(end, sizes[i]);
            end = offsets[i] + sizes[i];
            alignment = Math.max(alignment, sizes[i]);
        }
        this.bytes = align(end, alignment);
    }

    int offset(Enum<?> field) {
        return offsets[field.ordinal()];
    }

    /** The record's size in bytes. */
    int bytes() {
        return bytes;
    }

    String line() {
        StringBuilder line = new StringBuilder(name).append(" size=").append(bytes);
        for (Enum<?> field : fields) {
            line.append(',').append(field.name().toLowerCase(Locale.ROOT)).append('=').append(offset(field));
        }
        return line.toString();
    }

    private static int align(int offset, int alignment) {
        return (offset + alignment - 1) / alignment * alignment;
    }
}
