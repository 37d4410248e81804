package org.troika.spark;

import java.io.Serializable;
import org.troika.worker.RankEnv;

/**
 * What every rank of a {@link TroikaSpark#run} job runs, once, in its own process inside a Spark executor.
 *
 * <p>The function is Java-serialized on the driver and fetched by each rank over the job's authenticated channel; it is
 * deserialized with a class allow-list (see {@link RunOptions#allowedClasses()}), so it and everything it captures
 * must be {@link Serializable} and on the ranks' class path. The result travels back the same way (at most about
 * 1 MiB serialized).
 *
 * @param <R> the result type, {@code null} allowed
 */
@FunctionalInterface
public interface RankFunction<R extends Serializable> extends Serializable {
    R apply(RankEnv env) throws Exception;
}
