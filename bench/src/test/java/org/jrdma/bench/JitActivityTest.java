package org.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class JitActivityTest {
    @Test
    void countsTheOptimizingCompilersCurrentAndQueuedEntriesOnly() {
        String listing = """
                Current compiles:\s
                C2 CompilerThread0  1374       4       java.lang.StringLatin1::compareToCI (108 bytes)
                C1 CompilerThread0  1389       3       java.lang.reflect.Method::copy (84 bytes)

                C1 compile queue:
                1390       3       java.lang.reflect.Method::<init> (68 bytes)
                1398   !   3       java.util.WeakHashMap::expungeStaleEntries (139 bytes)

                C2 compile queue:
                1301       4       jdk.internal.org.objectweb.asm.SymbolTable::addConstantUtf8 (98 bytes)
                1333       4       java.lang.String::replace (42 bytes)
                """;
        assertEquals(3, JitActivity.countOptimizing(listing));
        assertEquals(0, JitActivity.countOptimizing("Current compiles: \n\nC1 compile queue:\nEmpty\n\nC2 compile queue:\nEmpty\n"));
    }

    @Test
    void theRunningVmAnswers() {
        assertTrue(JitActivity.optimizingCompilations() >= 0, "HotSpot's Compiler.queue diagnostic command");
    }
}
