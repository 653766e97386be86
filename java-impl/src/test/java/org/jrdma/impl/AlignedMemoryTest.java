package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AlignedMemoryTest {
    @BeforeAll
    static void loadLibrary() {
        NativeLoader.ensureLoaded(); // address0 is native
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4095, 4096, 4097, 8390656, 2 << 20})
    void exactSizeAndPageAligned(int bytes) {
        ByteBuffer memory = AlignedMemory.allocate(bytes);
        assertEquals(bytes, memory.capacity());
        assertEquals(0, NativeContext.address0(memory) % AlignedMemory.PAGE);
    }
}
