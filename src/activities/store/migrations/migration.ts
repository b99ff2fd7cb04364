/**
 * One versioned schema change. Versions start at 1 and increase by one; a released migration is
 * never edited (add a new one). Statements run in order inside the migration transaction and must be
 * valid on both SQLite and PostgreSQL unless `postgres` gives that backend its own statements.
 */
export interface Migration {
  readonly version: number;
  /** Short snake_case name, recorded in `schema_migrations` and checked on every open. */
  readonly name: string;
  readonly statements: readonly string[];
  /** PostgreSQL-only statements replacing `statements` there. */
  readonly postgres?: readonly string[];
}
