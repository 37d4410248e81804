package org.troika.mpi;

/** Predefined MPI reduction operations (MPI_SUM, MPI_MIN, MPI_MAX, MPI_PROD). */
public enum Op {
    SUM,
    MIN,
    MAX,
    PROD
}
