import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { RetailDb, openRetailDbFile } from './retail-db.js';
import type { RetailDbFileOptions } from './retail-db.js';
import { importRetailDbJson, readRetailDbJsonFile } from './retail-loader.js';

/**
 * A loaded retail database kept as SQLite file bytes, from which fresh copies are cheap: one load of
 * `db.json` (schema + import, about a second), then each copy is an in-memory database opened from
 * the bytes (`new Database(buffer)`, a few milliseconds), so every evaluation task starts from the
 * same state and no copy sees another's writes.
 */
export class RetailDbTemplate {
  private constructor(readonly bytes: Buffer) {}

  /**
   * Load a parsed `db.json` value into a new template.
   *
   * @throws RetailError `retail.db_invalid` for a value that is not a retail db.json.
   */
  static fromJson(value: unknown): RetailDbTemplate {
    const db = new RetailDb(new Database(':memory:'));
    try {
      importRetailDbJson(db, value);
      return new RetailDbTemplate(db.serialize());
    } finally {
      db.close();
    }
  }

  /**
   * Load a `db.json` file into a new template.
   *
   * @throws the file system's error, `SyntaxError` for text that is not JSON, or `retail.db_invalid`.
   */
  static fromJsonFile(path: string): RetailDbTemplate {
    return RetailDbTemplate.fromJson(readRetailDbJsonFile(path));
  }

  /** The bytes of a database file written by {@link writeTo} (or any retail database's `serialize()`). */
  static fromBytes(bytes: Buffer): RetailDbTemplate {
    return new RetailDbTemplate(Buffer.from(bytes));
  }

  /** A fresh in-memory copy: writable, independent of the template and of every other copy. */
  fresh(): RetailDb {
    return new RetailDb(new Database(this.bytes));
  }

  /**
   * Write the template as a database file at `path` (replacing it) and open it for a worker (WAL).
   *
   * @throws the file system's or SQLite's error.
   */
  writeTo(path: string, options: RetailDbFileOptions = {}): RetailDb {
    writeFileSync(path, this.bytes);
    return openRetailDbFile(path, options);
  }
}
