package org.jrdma.kv;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.jrdma.ConfigurationException;

/**
 * How one process takes part in a push/pull job, as ps-lite's DMLC_* environment says it: its role,
 * the scheduler's address and the job's size — the same on every node — and, optionally, its own
 * address. {@link #fromEnvironment()} reads it from {@code RDMA_KV_*} variables (docs/kv.md, "Jobs"):
 *
 * <ul>
 *   <li>{@code RDMA_KV_ROLE}: scheduler, server or worker (DMLC_ROLE)</li>
 *   <li>{@code RDMA_KV_SCHEDULER}: HOST:PORT of the scheduler (DMLC_PS_ROOT_URI, DMLC_PS_ROOT_PORT)</li>
 *   <li>{@code RDMA_KV_NUM_WORKERS}, {@code RDMA_KV_NUM_SERVERS}: the job's size (DMLC_NUM_WORKER, DMLC_NUM_SERVER)</li>
 *   <li>{@code RDMA_KV_ADDRESS} (optional): a server's listening HOST[:PORT] (default: every address, a free
 *       port), a worker's local address to connect from (default: the route's choice); the scheduler's
 *       is {@code RDMA_KV_SCHEDULER}</li>
 *   <li>{@code RDMA_KV_JOIN_TIMEOUT_MS} (optional): how long a node waits for the job to fill (60000)</li>
 * </ul>
 *
 * @param role        what this process is
 * @param scheduler   where the scheduler listens
 * @param workers     the job's workers
 * @param servers     the job's servers
 * @param address     this node's address (null: the default for its role, see above)
 * @param joinTimeout how long a server or worker waits for the job to fill
 */
public record KvJob(KvRole role, InetSocketAddress scheduler, int workers, int servers, InetSocketAddress address,
                    Duration joinTimeout) {
    /** A node waits this long for the job to fill unless told otherwise. */
    public static final Duration DEFAULT_JOIN_TIMEOUT = Duration.ofSeconds(60);

    /**
     * Checks the description.
     *
     * @param role        what this process is
     * @param scheduler   where the scheduler listens
     * @param workers     the job's workers (1..65536)
     * @param servers     the job's servers (1..65536)
     * @param address     this node's address, or null
     * @param joinTimeout how long to wait for the job to fill (positive)
     * @throws IllegalArgumentException when a count or the timeout is out of range
     */
    public KvJob {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(scheduler, "scheduler");
        Objects.requireNonNull(joinTimeout, "joinTimeout");
        if (workers < 1 || servers < 1 || workers > KvJobWire.MAX_NODES || servers > KvJobWire.MAX_NODES) {
            throw new IllegalArgumentException("a job of " + workers + " workers and " + servers + " servers (1.."
                    + KvJobWire.MAX_NODES + " each)");
        }
        if (joinTimeout.isNegative() || joinTimeout.isZero()) {
            throw new IllegalArgumentException("a join timeout of " + joinTimeout);
        }
    }

    /**
     * The job as this process's {@code RDMA_KV_*} environment variables describe it.
     *
     * @return the job
     * @throws ConfigurationException naming the variable that is missing or malformed
     */
    public static KvJob fromEnvironment() {
        return fromVariables(System.getenv());
    }

    /**
     * The job as {@code RDMA_KV_*} entries of {@code variables} describe it.
     *
     * @param variables names and values, as {@link System#getenv()} gives them
     * @return the job
     * @throws ConfigurationException naming the variable that is missing or malformed
     */
    public static KvJob fromVariables(Map<String, String> variables) {
        KvRole role;
        try {
            role = KvRole.parse(required(variables, "RDMA_KV_ROLE"));
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(e.getMessage());
        }
        InetSocketAddress scheduler = address(variables, "RDMA_KV_SCHEDULER", true);
        int workers = count(variables, "RDMA_KV_NUM_WORKERS");
        int servers = count(variables, "RDMA_KV_NUM_SERVERS");
        InetSocketAddress address = variables.containsKey("RDMA_KV_ADDRESS") ? address(variables, "RDMA_KV_ADDRESS", false) : null;
        Duration timeout = DEFAULT_JOIN_TIMEOUT;
        String millis = variables.get("RDMA_KV_JOIN_TIMEOUT_MS");
        if (millis != null) {
            timeout = Duration.ofMillis(number(millis, "RDMA_KV_JOIN_TIMEOUT_MS", 1, Integer.MAX_VALUE));
        }
        return new KvJob(role, scheduler, workers, servers, address, timeout);
    }

    private static String required(Map<String, String> variables, String name) {
        String value = variables.get(name);
        if (value == null || value.isBlank()) {
            throw new ConfigurationException(name + " is not set (docs/kv.md, \"Jobs\")");
        }
        return value.trim();
    }

    private static int count(Map<String, String> variables, String name) {
        return (int) number(required(variables, name), name, 1, KvJobWire.MAX_NODES);
    }

    private static long number(String text, String name, long min, long max) {
        try {
            long value = Long.parseLong(text.trim());
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException notANumber) {
            // said below
        }
        throw new ConfigurationException(name + "=" + text + ": expected a number from " + min + " to " + max);
    }

    /** HOST:PORT, [IPv6]:PORT, or (when the port is optional) a host alone: port 0. */
    private static InetSocketAddress address(Map<String, String> variables, String name, boolean portRequired) {
        String text = required(variables, name);
        int colon = text.lastIndexOf(':');
        boolean bracketed = text.startsWith("[");
        boolean hasPort = colon > 0 && (bracketed ? text.lastIndexOf(']') < colon : text.indexOf(':') == colon);
        if (!hasPort && portRequired) {
            throw new ConfigurationException(name + "=" + text + ": expected HOST:PORT");
        }
        String host = hasPort ? text.substring(0, colon) : text;
        if (bracketed) {
            host = host.substring(1, host.length() - 1);
        }
        int port = hasPort ? (int) number(text.substring(colon + 1), name + "'s port", portRequired ? 1 : 0, 65535) : 0;
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw new ConfigurationException(name + "=" + text + ": host " + host + " is not known");
        }
        return address;
    }
}
