/**
 * The library Java ranks use: {@link org.troika.worker.RankEnv} (who am I in the job) on top of troika-mpi's
 * {@code Mpi} / {@code Communicator} collectives. The elastic training API ({@code State}, {@code Elastic.run},
 * host-update notifications) lives in {@code org.troika.worker.elastic}.
 */
package org.troika.worker;
