import type { ReactNode } from "react";

/** Props of {@link LoginForm}. */
export interface LoginFormProps {
  /** Shown above the fields: the current tier. */
  readonly children?: ReactNode;
  readonly username: string;
  readonly password: string;
  readonly setUsername: (value: string) => void;
  readonly setPassword: (value: string) => void;
  readonly submit: () => void;
  readonly pending: boolean;
  readonly error: string | null;
}

/** The operator login card. */
export function LoginForm(props: LoginFormProps) {
  return (
    <form
      className="card"
      aria-labelledby="login-title"
      onSubmit={(event) => {
        event.preventDefault();
        props.submit();
      }}
    >
      <h1 id="login-title">Warden console</h1>
      {props.children}
      <p className="muted">Log in as an operator. Viewers can look; operators can act.</p>
      {props.error ? (
        <div className="notice tone-red" role="alert">
          {props.error}
        </div>
      ) : null}
      <div className="field">
        <label htmlFor="login-username">Username</label>
        <input
          id="login-username"
          type="text"
          name="username"
          autoComplete="username"
          autoFocus
          required
          value={props.username}
          onChange={(event) => props.setUsername(event.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="login-password">Password</label>
        <input
          id="login-password"
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={props.password}
          onChange={(event) => props.setPassword(event.target.value)}
        />
      </div>
      <button type="submit" className="button button-primary" disabled={props.pending}>
        {props.pending ? "Logging in…" : "Log in"}
      </button>
    </form>
  );
}
