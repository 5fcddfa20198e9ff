//! Start the playground on a free loopback port in the background and ask it for its health.
use std::io::{Read, Write};
use std::net::TcpStream;

fn main() -> std::io::Result<()> {
    let addr = orogen_playground::spawn("127.0.0.1:0")?;
    let mut stream = TcpStream::connect(addr)?;
    write!(
        stream,
        "GET /api/health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("ok"), "{answer}");
    println!("the playground answers at http://{addr}/");
    Ok(())
}
