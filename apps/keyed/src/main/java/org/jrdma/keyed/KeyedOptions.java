package org.jrdma.keyed;

/**
 * How a {@link KeyedChannel} behaves:
 * <ul>
 * <li>{@code fetchTimeoutMillis}: a fetch not answered this long is cancelled at the producer and fails
 * with {@link FetchTimeoutException} once the producer confirms (so nothing is written into the
 * destination after the future completed); a producer that does not confirm within another
 * period closes the channel;</li>
 * <li>{@code maxWaitingFetches}: fetches of this channel's peer a producer keeps waiting for values
 * not published yet; one more is a protocol violation that closes the channel (a flood);</li>
 * <li>{@code retryTooSmall}: a destination too small for the value is replaced by a buffer of the
 * right size from the context's pool and fetched again once, instead of failing with
 * {@link DestinationTooSmallException};</li>
 * <li>{@code validateData} (TensorFlow's {@code RDMA_DATA_VALIDATION}): this side's fetches ask the
 * producer for a CRC-32C of the value and check the bytes that landed against it; a mismatch fails
 * the fetch with {@link DataValidationException}. It costs a pass over the value on both sides.</li>
 * </ul>
 *
 * @param fetchTimeoutMillis how long a fetch may wait for its value
 * @param maxWaitingFetches  fetches of the peer a producer keeps waiting
 * @param retryTooSmall      whether a destination too small is replaced and the fetch retried once
 * @param validateData       whether this side's fetches check the value's CRC-32C
 */
public record KeyedOptions(int fetchTimeoutMillis, int maxWaitingFetches, boolean retryTooSmall, boolean validateData) {
    /** 30 s, 4096 waiting fetches, no retry, no validation. */
    public static final KeyedOptions DEFAULTS = new KeyedOptions(30000, 4096, false, false);

    /**
     * Checks the bounds.
     *
     * @param fetchTimeoutMillis how long a fetch may wait for its value (positive)
     * @param maxWaitingFetches  fetches of the peer a producer keeps waiting (positive)
     * @param retryTooSmall      whether a destination too small is replaced and the fetch retried once
     * @param validateData       whether this side's fetches check the value's CRC-32C
     */
    public KeyedOptions {
        if (fetchTimeoutMillis < 1 || maxWaitingFetches < 1) {
            throw new IllegalArgumentException("fetchTimeoutMillis and maxWaitingFetches must be positive: "
                    + fetchTimeoutMillis + ", " + maxWaitingFetches);
        }
    }

    /**
     * The options without data validation.
     *
     * @param fetchTimeoutMillis how long a fetch may wait for its value (positive)
     * @param maxWaitingFetches  fetches of the peer a producer keeps waiting (positive)
     * @param retryTooSmall      whether a destination too small is replaced and the fetch retried once
     */
    public KeyedOptions(int fetchTimeoutMillis, int maxWaitingFetches, boolean retryTooSmall) {
        this(fetchTimeoutMillis, maxWaitingFetches, retryTooSmall, false);
    }

    /**
     * These options with data validation on or off.
     *
     * @param validate whether this side's fetches check the value's CRC-32C
     * @return the new options
     */
    public KeyedOptions withDataValidation(boolean validate) {
        return new KeyedOptions(fetchTimeoutMillis, maxWaitingFetches, retryTooSmall, validate);
    }

    /**
     * These options with another retry choice.
     *
     * @param retry whether a destination too small is replaced and the fetch retried once
     * @return the new options
     */
    public KeyedOptions withRetryTooSmall(boolean retry) {
        return new KeyedOptions(fetchTimeoutMillis, maxWaitingFetches, retry, validateData);
    }

    /**
     * These options with another fetch timeout.
     *
     * @param millis how long a fetch may wait for its value (positive)
     * @return the new options
     */
    public KeyedOptions withFetchTimeoutMillis(int millis) {
        return new KeyedOptions(millis, maxWaitingFetches, retryTooSmall, validateData);
    }

    /**
     * These options with another bound on waiting fetches.
     *
     * @param fetches fetches of the peer a producer keeps waiting (positive)
     * @return the new options
     */
    public KeyedOptions withMaxWaitingFetches(int fetches) {
        return new KeyedOptions(fetchTimeoutMillis, fetches, retryTooSmall, validateData);
    }
}
