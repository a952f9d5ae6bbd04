// The generated fetch client names `BodyInit`, a global of the DOM library; Node's types keep it inside
// `RequestInit`, so this project (compiled without the DOM library) names it from there.
type BodyInit = NonNullable<RequestInit['body']>;
