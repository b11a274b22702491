import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, query, type Page } from './api';
import { LabelledInput, useLoad } from './ui';

/** One page of the list the API answers at `path`, searched for the last search sent. */
export function useSearchedPage<T>(path: string, limit: number) {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const list = useLoad(() => api<Page<T>>('GET', `${path}${query({ page, limit, search })}`), [path, page, search]);
  /** A new search starts again at the first page. */
  const searchFor = (text: string) => {
    setPage(1);
    setSearch(text);
  };
  return { list, page, setPage, searchFor };
}

/** A search box: the list is searched when the form is sent, not at each keystroke. */
export function SearchForm({ id, label, onSearch }: { id: string; label: string; onSearch: (text: string) => void }) {
  const [text, setText] = useState('');
  return (
    <form
      class="filters"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        onSearch(text.trim());
      }}
    >
      <LabelledInput id={id} label={label} type="search" value={text} onValue={setText} />
      <button type="submit">Search</button>
    </form>
  );
}

/** The heading of a column of row actions: read by screen readers, not shown. */
export function ActionsHeading() {
  return <span class="visually-hidden">Actions</span>;
}

/** A table of records: a caption for screen readers, a heading per column, then the rows. */
export function Table({
  caption,
  columns,
  children,
}: {
  caption?: string;
  columns: ComponentChildren[];
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table>
        {caption && <caption class="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th scope="col" key={index}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

export function Pager({
  page,
  limit,
  total,
  onPage,
  label,
}: {
  page: number;
  limit: number;
  total: number;
  onPage: (page: number) => void;
  label: string;
}) {
  const pages = Math.max(1, Math.ceil(total / limit));
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span aria-live="polite">
        Page {page} of {pages} ({total} in all)
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
