package org.jrdma.bench;

import java.net.InetSocketAddress;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The checked argument types of the command line (picocli converters): each refuses a bad value
 * with one line that says what is allowed, so that every bad argument is a usage error (exit code 2).
 */
final class Arguments {
    static final int MAX_SIZE = 1 << 30; // the default maxMessageSize
    static final int MAX_ITERATIONS = 100_000_000;

    private Arguments() {
    }

    /** A whole number in [min, max]. */
    static int count(String value, int min, int max) {
        long n;
        try {
            n = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is not a whole number");
        }
        if (n < min || n > max) {
            throw new TypeConversionException(value + " is out of range; allowed: " + min + ".." + max);
        }
        return (int) n;
    }

    /** Iterations: 1..100000000. */
    static final class Iterations implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return count(value, 1, MAX_ITERATIONS);
        }
    }

    /** Untimed iterations: 0..100000000. */
    static final class WarmUp implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return count(value, 0, MAX_ITERATIONS);
        }
    }

    /** Operations in flight: 1..120 (the send queue's depth leaves room for credits). */
    static final class Window implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return count(value, 1, 120);
        }
    }

    /** Seconds: 1..3600. */
    static final class Seconds implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return count(value, 1, 3600);
        }
    }

    /** A message size with an optional K, M or G suffix (powers of 1024), 1 byte .. 1 GiB. */
    static final class Size implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            String t = value.trim().toUpperCase(Locale.ROOT);
            long factor = t.endsWith("K") ? 1L << 10 : t.endsWith("M") ? 1L << 20 : t.endsWith("G") ? 1L << 30 : 1;
            String digits = factor == 1 ? t : t.substring(0, t.length() - 1);
            long size;
            try {
                size = Long.parseLong(digits) * factor;
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a size (e.g. 8, 4K, 1M)");
            }
            if (digits.length() > 12 || size < 1 || size > MAX_SIZE) {
                throw new TypeConversionException(value + " is out of range; sizes are 1 byte .. 1G");
            }
            return (int) size;
        }
    }

    /** One of {@link BenchOptions#ALL_TESTS}. */
    static final class Test implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (!BenchOptions.ALL_TESTS.contains(value)) {
                throw new TypeConversionException("unknown test '" + value + "'; tests: " + String.join(", ", BenchOptions.ALL_TESTS));
            }
            return value;
        }
    }

    /** IP:PORT with a port 0..65535 (0: any free port; servers). */
    static final class ListenAddress implements ITypeConverter<InetSocketAddress> {
        @Override
        public InetSocketAddress convert(String value) {
            return hostPort(value, 0);
        }
    }

    /** IP:PORT with a port 1..65535. */
    static final class PeerAddress implements ITypeConverter<InetSocketAddress> {
        @Override
        public InetSocketAddress convert(String value) {
            return hostPort(value, 1);
        }
    }

    private static InetSocketAddress hostPort(String value, int minPort) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0) {
            throw new TypeConversionException("'" + value + "' is not IP:PORT");
        }
        int port;
        try {
            port = count(value.substring(colon + 1), minPort, 65535);
        } catch (TypeConversionException e) {
            throw new TypeConversionException("the port of '" + value + "': " + e.getMessage());
        }
        String host = value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw new TypeConversionException("'" + host + "' is not an address of this network (unknown host)");
        }
        return address;
    }
}
