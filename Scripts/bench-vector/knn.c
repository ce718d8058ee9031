// KNN and insert timings of sqlite-vec as Amalgam compiles it (Sources/AmalgamSQLite/ext_sqlite_vec.c), through
// SQLite's C API, on the vectors in data.f32 (written by Scripts/bench-vector/run with numpy). Also measures
// this machine's memory read bandwidth, the floor under a brute-force scan.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sqlite3.h"

int sqlite3_vec_init(sqlite3 *db, char **errorMessage, const void *api);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void check(int rc, sqlite3 *db, const char *what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: knn DATA ROWS DIMENSIONS QUERIES\n");
    return 2;
  }
  int rows = atoi(argv[2]), dimensions = atoi(argv[3]), queries = atoi(argv[4]);
  size_t vectorBytes = (size_t)dimensions * 4;
  float *data = malloc(vectorBytes * (rows + queries));
  FILE *file = fopen(argv[1], "rb");
  if (!file || fread(data, vectorBytes, rows + queries, file) != (size_t)(rows + queries)) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  fclose(file);

  // Memory read bandwidth: sum every float of the table, best of 5.
  double best = 1e9, sink = 0;
  for (int round = 0; round < 5; round++) {
    double start = now();
    float sum[8] = {0};
    size_t count = (size_t)rows * dimensions;
    for (size_t i = 0; i + 8 <= count; i += 8)
      for (int j = 0; j < 8; j++) sum[j] += data[i + j];
    double elapsed = now() - start;
    for (int j = 0; j < 8; j++) sink += sum[j];
    if (elapsed < best) best = elapsed;
  }
  double tableBytes = (double)rows * vectorBytes;
  printf("bandwidth_gb_s %.2f (sink %.1f)\n", tableBytes / best / 1e9, sink > 0 ? 1.0 : 0.0);

  const char *kinds[] = {"float", "int8", "bit"};
  for (int kind = 0; kind < 3; kind++) {
    sqlite3 *db;
    check(sqlite3_open(":memory:", &db), db, "open");
    char *message = 0;
    check(sqlite3_vec_init(db, &message, 0), db, "sqlite3_vec_init");
    char sql[256];
    snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE item USING vec0(embedding %s[%d])", kinds[kind], dimensions);
    check(sqlite3_exec(db, sql, 0, 0, 0), db, "create");
    const char *insertSQL[] = {
      "INSERT INTO item(rowid, embedding) VALUES (?, ?)",
      "INSERT INTO item(rowid, embedding) VALUES (?, vec_quantize_int8(?, 'unit'))",
      "INSERT INTO item(rowid, embedding) VALUES (?, vec_quantize_binary(?))",
    };
    sqlite3_stmt *insert;
    check(sqlite3_prepare_v2(db, insertSQL[kind], -1, &insert, 0), db, "prepare insert");
    double start = now();
    check(sqlite3_exec(db, "BEGIN", 0, 0, 0), db, "begin");
    for (int i = 0; i < rows; i++) {
      sqlite3_bind_int64(insert, 1, i + 1);
      sqlite3_bind_blob(insert, 2, data + (size_t)i * dimensions, (int)vectorBytes, SQLITE_STATIC);
      check(sqlite3_step(insert), db, "insert");
      sqlite3_reset(insert);
    }
    check(sqlite3_exec(db, "COMMIT", 0, 0, 0), db, "commit");
    double insertSeconds = now() - start;
    sqlite3_finalize(insert);

    const char *querySQL[] = {
      "SELECT rowid, distance FROM item WHERE embedding MATCH ? AND k = 10 ORDER BY distance",
      "SELECT rowid, distance FROM item WHERE embedding MATCH vec_quantize_int8(?, 'unit') AND k = 10 ORDER BY distance",
      "SELECT rowid, distance FROM item WHERE embedding MATCH vec_quantize_binary(?) AND k = 10 ORDER BY distance",
    };
    sqlite3_stmt *query;
    check(sqlite3_prepare_v2(db, querySQL[kind], -1, &query, 0), db, "prepare query");
    double fastest = 1e9, total = 0;
    long long firstRowid = 0;
    for (int q = 0; q < queries; q++) {
      sqlite3_bind_blob(query, 1, data + (size_t)(rows + q) * dimensions, (int)vectorBytes, SQLITE_STATIC);
      double queryStart = now();
      int found = 0;
      while (sqlite3_step(query) == SQLITE_ROW) {
        if (q == 0 && found == 0) firstRowid = sqlite3_column_int64(query, 0);
        found++;
      }
      double elapsed = now() - queryStart;
      sqlite3_reset(query);
      if (found != 10) {
        fprintf(stderr, "query %d found %d rows: %s\n", q, found, sqlite3_errmsg(db));
        return 1;
      }
      total += elapsed;
      if (elapsed < fastest) fastest = elapsed;
    }
    sqlite3_finalize(query);
    printf("%s insert_s %.3f knn_ms_min %.2f knn_ms_mean %.2f first_rowid %lld\n", kinds[kind], insertSeconds,
           fastest * 1e3, total / queries * 1e3, firstRowid);
    sqlite3_close(db);
  }
  return 0;
}
