package org.troika.spark;

import java.io.Serializable;
import java.util.Iterator;
import org.apache.spark.api.java.JavaRDD;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Barrier mode from Java: Spark has no Java API for it ({@code RDDBarrier.mapPartitions} takes a Scala function and a
 * {@code ClassTag}), so this wraps a Java partition function.
 */
final class BarrierStage {
    private BarrierStage() {}

    /** A partition function. */
    interface PartitionFn<T, S> extends Serializable {
        Iterator<S> apply(Iterator<T> in) throws Exception;
    }

    private static final class Fn<T, S> extends scala.runtime.AbstractFunction1<scala.collection.Iterator<T>,
            scala.collection.Iterator<S>> implements Serializable {
        private static final long serialVersionUID = 1L;
        private final PartitionFn<T, S> f;

        Fn(PartitionFn<T, S> f) {
            this.f = f;
        }

        @Override
        public scala.collection.Iterator<S> apply(scala.collection.Iterator<T> it) {
            try {
                return scala.jdk.javaapi.CollectionConverters.asScala(
                        f.apply(scala.jdk.javaapi.CollectionConverters.asJava(it)));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
    }

    /** {@code rdd.barrier().mapPartitions(f)}. */
    static <T, S> JavaRDD<S> map(JavaRDD<T> rdd, PartitionFn<T, S> f, Class<S> type) {
        ClassTag<S> tag = ClassTag$.MODULE$.apply(type);
        return JavaRDD.fromRDD(rdd.rdd().barrier().mapPartitions(new Fn<>(f), false, tag), tag);
    }
}
